import type { ApiErrorCode, ApiErrorReason } from '@lazyboy/contracts';

const STATUS: Record<ApiErrorCode, number> = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  NOT_READY: 503,
  INTERNAL: 500,
};

/**
 * An answer the API gives on purpose: a stable code (its HTTP status follows from it), a message for
 * people, optional details and, for a CONFLICT or a FORBIDDEN, the reason clients show their own text for.
 * The exception filter turns it into `{ error: { code, message, reason?, details? } }`. Build conflicts with
 * conflict().
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: unknown,
    /** Extra response headers (Retry-After on RATE_LIMITED). */
    readonly headers: Record<string, string> = {},
    /** Why a CONFLICT (or a FORBIDDEN) was refused; set through conflict() and forbidden(). */
    readonly reason?: ApiErrorReason,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

/** The one answer for an id the caller may not see: foreign ids look exactly like missing ones. */
export function notFound(what: string): ApiError {
  return new ApiError('NOT_FOUND', `${what} not found`);
}

/** A refusal that depends on state; `reason` is what clients match on, the English message stays for people. */
export function conflict(reason: ApiErrorReason, message: string, details?: unknown): ApiError {
  return new ApiError('CONFLICT', message, details, {}, reason);
}

/** A refusal of who the caller is; with a `reason` when clients need to tell it apart from a missing role. */
export function forbidden(message: string, reason?: ApiErrorReason): ApiError {
  return new ApiError('FORBIDDEN', message, undefined, {}, reason);
}
