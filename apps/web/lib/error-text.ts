import type { Messages } from '../locales';
import { ApiError } from './api';

/**
 * What to tell the person about a failed request. The API's messages are specific ("the name is taken"),
 * so they are shown as they are; only failures without one get a catalog text.
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
    default:
      return error.message || t.errorUnexpected;
  }
}
