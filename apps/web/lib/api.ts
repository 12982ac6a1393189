import { apiErrorBodySchema, type ApiErrorCode, type ApiErrorReason } from '@lazyboy/contracts';

/** The API's own codes, plus the two failures that never reach it or come back unreadable. */
export type ClientErrorCode = ApiErrorCode | 'NETWORK' | 'UNREADABLE';

/** What an API error body says beyond its code and message; absent for failures that never reached the API. */
export interface ApiErrorExtras {
  /** Why a CONFLICT was refused (undefined for a reason this build does not know yet). */
  reason?: ApiErrorReason;
  /** VALIDATION_FAILED: `{ issues: { path, message }[] }`; otherwise whatever the API added. */
  details?: unknown;
}

export class ApiError extends Error {
  readonly reason: ApiErrorReason | undefined;
  readonly details: unknown;

  constructor(
    readonly code: ClientErrorCode,
    message: string,
    /** 0 when the request never got an answer. */
    readonly status: number,
    { reason, details }: ApiErrorExtras = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.reason = reason;
    this.details = details;
  }
}

/** Longer than any API request takes (booting a computer is the slowest, a few seconds). */
const REQUEST_TIMEOUT_MS = 60_000;

type Listener = () => void;
const unauthenticatedListeners = new Set<Listener>();

/** Called whenever a request answers 401: the session cookie expired or was revoked. */
export function onUnauthenticated(listener: Listener): () => void {
  unauthenticatedListeners.add(listener);
  return () => unauthenticatedListeners.delete(listener);
}

export function notifyUnauthenticated(): void {
  for (const listener of unauthenticatedListeners) listener();
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
}

/**
 * Same-origin JSON request to the API (the web server proxies /api/*, the session cookie rides along).
 * Resolves with the parsed body (undefined for 204); rejects with an ApiError carrying the API's code, message,
 * reason and details (show it with errorText, never its English message).
 */
export async function apiRequest<T>(path: string, { method = 'GET', body, signal }: RequestOptions = {}): Promise<T> {
  let res: Response;
  // A request that never answers would hold up what waits behind it (a chat's later messages): it fails
  // as a network error instead, which a message retries with its same clientNonce.
  const deadline = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers:
        body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError('NETWORK', error instanceof Error ? error.message : String(error), 0);
  }
  if (res.status === 401) notifyUnauthenticated();
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError('UNREADABLE', `unreadable answer (${res.status})`, res.status);
  }
}

async function errorOf(res: Response): Promise<ApiError> {
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    // A proxy's HTML error page, or nothing at all: the status alone has to do.
  }
  const parsed = apiErrorBodySchema.safeParse(json);
  if (parsed.success) {
    const { code, message, reason, details } = parsed.data.error;
    return new ApiError(code, message, res.status, { reason, details });
  }
  // A gateway in front of the API (the API itself is down): as good as no answer.
  const code: ClientErrorCode =
    res.status === 502 || res.status === 504 ? 'NETWORK' : res.status >= 500 ? 'INTERNAL' : 'UNREADABLE';
  return new ApiError(code, `${res.status} ${res.statusText}`.trim(), res.status);
}

/** True for an aborted fetch (a component unmounted): such errors are nobody's business. */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}
