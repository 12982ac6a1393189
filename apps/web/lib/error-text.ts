import type { Messages } from '../locales';
import { ApiError } from './api';

/**
 * What to tell the person about a failed request, in their language. Conflicts and refused input keep the
 * API's own message, which says what to change ("the name is taken") but is in English; every other
 * failure gets a catalog text.
 */
export function errorText(error: unknown, t: Messages): string {
  if (!(error instanceof ApiError)) return t.errorUnexpected;
  switch (error.code) {
    case 'NETWORK':
      return t.errorNetwork;
    case 'UNREADABLE':
    case 'INTERNAL':
      return t.errorUnexpected;
    case 'RATE_LIMITED':
      return t.errorRateLimited;
    case 'NOT_READY':
      return t.errorNotReady;
    case 'NOT_FOUND':
      return t.errorNotFound;
    case 'FORBIDDEN':
      return t.errorForbidden;
    case 'UNAUTHENTICATED':
      return t.errorSignedOut;
    default:
      return error.message || t.errorUnexpected;
  }
}
