import {
  BIND_FENCE_HEADER,
  workerErrorBodySchema,
  workerRoutes,
  type WorkerErrorCode,
  type WorkerHealth,
  type WorkerRequest,
  type WorkerResponse,
  type WorkerRoute,
} from '@lazyboy/contracts';

/**
 * The worker refused or failed a call: its stable code and status, UNREACHABLE when it did not answer, or
 * COMPUTER_LOST when it did not answer because it is gone (the computer is restarted on its next use).
 */
export class WorkerCallError extends Error {
  override readonly name = 'WorkerCallError';
  constructor(
    readonly code: WorkerErrorCode | 'UNREACHABLE' | 'BAD_RESPONSE' | 'COMPUTER_LOST',
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/**
 * True when no worker of the computer received the call, so nothing was done: its connection was refused,
 * or never made (the worker was known gone before it started), or the worker that answered at the address
 * refused the computer's token (another worker is there now).
 */
export function neverDelivered(error: WorkerCallError): boolean {
  const connection = (error.details as { connection?: unknown } | undefined)?.connection;
  return error.code === 'UNAUTHENTICATED' || connection === 'refused' || connection === 'not_made';
}

export interface WorkerEndpoint {
  /** Control API base URL, e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  token: string;
  /**
   * The binding's fence (`Computer.bindFence`) read with the endpoint, sent on every call: the worker refuses
   * a lower one (STALE_BINDER). Unset only before the worker is bound (the driver's start-up checks).
   */
  bindFence?: number;
}

export interface WorkerClientHooks {
  /**
   * A call found no worker of the computer at its address: nothing answered (UNREACHABLE), or a worker that
   * does not know the computer's token did (UNAUTHENTICATED: a static pool's worker restarted fresh, a port
   * or pod address reused). What to throw instead (COMPUTER_LOST once the computers service has found the
   * worker gone and fenced it off), or the error itself.
   */
  unreachable?(error: WorkerCallError): Promise<WorkerCallError>;
  /**
   * Aborted once the worker is known gone (the driver reported it lost): a call in flight then fails at once
   * as UNREACHABLE, and so through `unreachable`, instead of waiting for its timeout.
   */
  gone?(): AbortSignal | undefined;
}

export interface WorkerCallOptions {
  signal?: AbortSignal;
  /** Default two minutes; calls that wait on purpose (a wait, a shell command) pass their own. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * The API's one client of a worker's control API. It calls only the routes of libs/contracts'
 * workerRoutes / browserRoutes, with the computer's bearer token, and parses every answer with the route's
 * response schema once: a caller gets a typed value or a WorkerCallError (the worker's code, UNREACHABLE,
 * or BAD_RESPONSE for an answer that does not fit the contract).
 */
export class WorkerClient {
  constructor(
    protected target: WorkerEndpoint,
    protected readonly hooks: WorkerClientHooks = {},
  ) {}

  get endpoint(): WorkerEndpoint {
    return this.target;
  }

  async call<R extends WorkerRoute>(
    route: R,
    body: WorkerRequest<R>,
    options: WorkerCallOptions = {},
  ): Promise<WorkerResponse<R>> {
    const json = await this.request(route, route.method === 'GET' ? undefined : body, options);
    const parsed = route.response.safeParse(json);
    if (!parsed.success) {
      throw new WorkerCallError('BAD_RESPONSE', 200, `worker ${route.path}: the answer does not fit the contract`, {
        issues: parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`),
      });
    }
    return parsed.data as WorkerResponse<R>;
  }

  /** Whether the worker is up: its health answer, or undefined when it does not answer (yet). No token needed. */
  async health(timeoutMs = 2_000): Promise<WorkerHealth | undefined> {
    try {
      return await this.call(workerRoutes.health, {}, { timeoutMs });
    } catch (error) {
      if (error instanceof WorkerCallError) return undefined;
      throw error;
    }
  }

  private async request(
    route: WorkerRoute,
    body: unknown,
    { signal, timeoutMs = DEFAULT_TIMEOUT_MS }: WorkerCallOptions,
  ): Promise<unknown> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const gone = this.hooks.gone?.();
    if (gone?.aborted) {
      // Known gone before this call started: it is not sent at all, so it certainly did nothing.
      const unsent = new WorkerCallError('UNREACHABLE', 0, `worker ${route.path}: ${(gone.reason as Error).message}`, {
        connection: 'not_made',
      });
      throw this.hooks.unreachable ? await this.hooks.unreachable(unsent) : unsent;
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.endpoint.baseUrl}${route.path}`, {
        method: route.method,
        headers: {
          authorization: `Bearer ${this.endpoint.token}`,
          ...(this.endpoint.bindFence === undefined ? {} : { [BIND_FENCE_HEADER]: String(this.endpoint.bindFence) }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.any([timeout, ...(signal ? [signal] : []), ...(gone ? [gone] : [])]),
      });
      // Inside: a connection that drops in the middle of the answer is a worker that went away as well.
      text = await res.text();
    } catch (error) {
      if (signal?.aborted) throw error;
      if (gone?.aborted) {
        const vanished = new WorkerCallError('UNREACHABLE', 0, `worker ${route.path}: ${(gone.reason as Error).message}`);
        throw this.hooks.unreachable ? await this.hooks.unreachable(vanished) : vanished;
      }
      // Refused: nothing listens there, so the call never reached a worker (safe to make elsewhere).
      const refused = (error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED';
      const unreachable = new WorkerCallError(
        'UNREACHABLE',
        0,
        `worker ${route.path}: ${(error as Error).message}${refused ? ' (connection refused)' : ''}`,
        refused ? { connection: 'refused' } : undefined,
      );
      throw this.hooks.unreachable ? await this.hooks.unreachable(unreachable) : unreachable;
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new WorkerCallError(
        'BAD_RESPONSE',
        res.status,
        `worker ${route.path}: answered ${res.status} with a body that is not JSON`,
      );
    }
    if (res.ok) return json;
    const parsed = workerErrorBodySchema.safeParse(json);
    if (parsed.success) {
      const refused = new WorkerCallError(
        parsed.data.error.code,
        res.status,
        parsed.data.error.message,
        parsed.data.error.details,
      );
      // The computer's token is fresh for every worker: one that refuses it is another worker than the computer's.
      if (refused.code === 'UNAUTHENTICATED' && this.hooks.unreachable) throw await this.hooks.unreachable(refused);
      throw refused;
    }
    throw new WorkerCallError('BAD_RESPONSE', res.status, `worker ${route.path}: answered ${res.status}`);
  }
}
