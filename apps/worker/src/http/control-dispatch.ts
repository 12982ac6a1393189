import type http from 'node:http';
import { finished } from 'node:stream';
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
  /**
   * A pool worker's: lets the computer go once the release call's answer is out (it stops the desktop and
   * ends the process). Without it the worker serves its computer for good and refuses the release.
   */
  release?: () => void;
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
    // The release itself happens once the answer is out (see handle): its caller then waits for the worker to go.
    options.router.serve(workerRoutes.release, async () => {
      if (!options.release) {
        throw new WorkerHttpError(
          'NOT_A_POOL_WORKER',
          `this worker was started for computer ${options.computerId}: only a pool worker is released (stop this one instead)`,
        );
      }
      return { computerId: options.computerId, releasing: true as const };
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
      const { release } = this.options;
      if (release && req.method === workerRoutes.release.method && url.pathname === workerRoutes.release.path) {
        // Only after the answer has left (or the caller hung up): the release closes this server.
        finished(res, () => release());
      }
    } catch (error) {
      if (error instanceof WorkerHttpError) return sendJson(res, error.status, error.body());
      this.options.log(
        `${req.method} ${url.pathname} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      sendJson(res, 500, { error: { code: 'INTERNAL', message: 'the worker failed to handle the call; see its log' } });
    }
  }
}
