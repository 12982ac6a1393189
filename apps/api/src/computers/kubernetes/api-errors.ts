import { ApiException } from '@kubernetes/client-node';

/** The HTTP status of a Kubernetes API call that failed, when it got that far. */
export function statusOf(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

/** 409: the object changed since it was read (its resourceVersion), or already exists. */
export const isConflict = (error: unknown): boolean => statusOf(error) === 409;
export const isNotFound = (error: unknown): boolean => statusOf(error) === 404;

/** A short account of a failed call, for logs and errors: the API server's message, never a request body. */
export function describeApiError(error: unknown): string {
  if (error instanceof ApiException) {
    const body = error.body as unknown;
    let message: string | undefined;
    if (typeof body === 'string') {
      try {
        message = (JSON.parse(body) as { message?: string }).message;
      } catch {
        message = body.slice(0, 200);
      }
    } else if (body && typeof body === 'object') message = (body as { message?: string }).message;
    return `the Kubernetes API answered ${error.code}${message ? `: ${message}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}
