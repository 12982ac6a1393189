import type http from 'node:http';
import { BIND_FENCE_HEADER, workerRoutes, type WorkerHealth } from '@lazyboy/contracts';
import { BindFence } from '../fencing/bind-fence.js';
import { BearerToken } from './bearer-token.js';
import { WorkerHttpError } from './errors.js';
import { notFound, type Router, sendJson } from './router.js';

export interface ControlDispatchOptions {
  computerId: string;
  token: string;
  router: Router;
  log: (line: string) => void;
}

/**
 * How every control request is answered, in this order: /healthz without a token; then the bearer token;
 * then the binding's fence (a superseded API replica is refused before anything runs); then the route.
 * Shared by the worker's ControlServer and the API's in-memory test worker, so both speak one protocol.
 */
export class ControlDispatch {
  readonly bindFence = new BindFence();
  private readonly token: BearerToken;
  private readonly startedAt = Date.now();

  constructor(private readonly options: ControlDispatchOptions) {
    this.token = new BearerToken(options.token);
    options.router.serve(workerRoutes.bind, async ({ body }) => ({
      computerId: options.computerId,
      bindFence: this.bindFence.bind(body.bindFence),
    }));
    // Only a warm pool worker can be assigned (pool/pool-worker.ts answers it there); this one serves a computer.
    options.router.serve(workerRoutes.assign, async () => {
      throw new WorkerHttpError('ALREADY_ASSIGNED', `this worker serves computer ${options.computerId}`, {
        computerId: options.computerId,
      });
    });
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // Liveness needs no token: the pool driver asks it before it knows the worker is up.
    if (req.method === workerRoutes.health.method && url.pathname === workerRoutes.health.path) {
      const health: WorkerHealth = {
        status: 'ok',
        computerId: this.options.computerId,
        uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
      };
      return sendJson(res, 200, health);
    }
    if (!this.token.admits(req.headers.authorization)) {
      return sendJson(res, 401, { error: { code: 'UNAUTHENTICATED', message: 'a valid control token is required' } });
    }
    try {
      // The bind call itself carries its fence in the body (checked there): it is how a new binder announces itself.
      const binding = req.method === workerRoutes.bind.method && url.pathname === workerRoutes.bind.path;
      if (!binding) this.bindFence.admit(req.headers[BIND_FENCE_HEADER]);
      const served = this.options.router.match(req.method ?? '', url.pathname);
      if (!served) throw notFound(req.method, url.pathname);
      sendJson(res, 200, await served(req, url));
    } catch (error) {
      if (error instanceof WorkerHttpError) return sendJson(res, error.status, error.body());
      this.options.log(
        `${req.method} ${url.pathname} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      sendJson(res, 500, { error: { code: 'INTERNAL', message: 'the worker failed to handle the call; see its log' } });
    }
  }
}
