import { workerErrorBodySchema, type WorkerErrorCode } from '@lazyboy/contracts';

/** The worker refused or failed a call: its stable code and status, or UNREACHABLE when it did not answer. */
export class WorkerCallError extends Error {
  override readonly name = 'WorkerCallError';
  constructor(
    readonly code: WorkerErrorCode | 'UNREACHABLE' | 'BAD_RESPONSE',
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export interface WorkerEndpoint {
  /** Control API base URL, e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  token: string;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * The API's client of one worker's control API (see libs/contracts worker-api.ts for routes and bodies).
 * Speaks JSON with the computer's bearer token; errors become WorkerCallError with the worker's code.
 */
export class WorkerClient {
  constructor(readonly endpoint: WorkerEndpoint) {}

  async get<T>(route: `/${string}`, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
    return this.request<T>('GET', route, undefined, options);
  }

  async post<T>(route: `/${string}`, body: unknown, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
    return this.request<T>('POST', route, body, options);
  }

  private async request<T>(
    method: 'GET' | 'POST',
    route: string,
    body: unknown,
    { signal, timeoutMs = DEFAULT_TIMEOUT_MS }: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<T> {
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${this.endpoint.baseUrl}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${this.endpoint.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new WorkerCallError('UNREACHABLE', 0, `worker ${route}: ${(error as Error).message}`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new WorkerCallError(
        'BAD_RESPONSE',
        res.status,
        `worker ${route}: answered ${res.status} with a body that is not JSON`,
      );
    }
    if (res.ok) return json as T;
    const parsed = workerErrorBodySchema.safeParse(json);
    if (parsed.success) {
      throw new WorkerCallError(parsed.data.error.code, res.status, parsed.data.error.message, parsed.data.error.details);
    }
    throw new WorkerCallError('BAD_RESPONSE', res.status, `worker ${route}: answered ${res.status}`);
  }
}
