import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { workerRoutes, type AssignRequest, type PoolWorkerEnv, type WorkerEnv, type WorkerHealth } from '@lazyboy/contracts';
import type { ScreenManager } from '@lazyboy/desktop';
import { screensOf } from '../computer-screens.js';
import { ControlServer } from '../control-server.js';
import { BearerToken } from '../http/bearer-token.js';
import { WorkerHttpError } from '../http/errors.js';
import { readJsonBody, validate } from '../http/json-body.js';
import { sendJson } from '../http/router.js';

/** What a pool worker became when it was assigned. */
interface Assignment {
  computerId: string;
  token: BearerToken;
  screens: ScreenManager;
  control: ControlServer;
}

export interface PoolWorkerDeps {
  log?: (line: string) => void;
  /** Makes the computer's screens once it is known (tests give a ScreenManager that touches nothing). */
  makeScreens?: (config: WorkerEnv) => ScreenManager;
}

/**
 * A warm worker of a cluster's pool: a ready pod whose process is up but serves no computer yet. Until the
 * API assigns it one (`POST /pool/assign`, authorised by the pool's shared token) it answers only its
 * health (computerId null) and that assignment; from then on it is that computer's worker, every call
 * authorised by the control token the assignment carried and handed to the computer's ControlServer. An
 * assignment repeated with the same computer and token (its answer was lost) is answered again; any other
 * is refused, so two API replicas can never both make one pod theirs.
 */
export class PoolWorker {
  private readonly server: http.Server;
  private readonly poolToken: BearerToken;
  private readonly log: (line: string) => void;
  private readonly startedAt = Date.now();
  private assignment: Assignment | undefined;

  constructor(
    private readonly config: PoolWorkerEnv,
    private readonly deps: PoolWorkerDeps = {},
  ) {
    this.poolToken = new BearerToken(config.LAZYBOY_POOL_TOKEN);
    this.log = deps.log ?? ((line) => console.error(`[pool worker] ${line}`));
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      if (this.assignment) this.assignment.control.handleUpgrade(req, socket, head);
      else socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
    });
  }

  /** The computer it serves, once assigned. */
  get computerId(): string | undefined {
    return this.assignment?.computerId;
  }

  async listen(): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.config.LAZYBOY_WORKER_PORT, this.config.LAZYBOY_WORKER_HOST, resolve);
    });
    return this.server.address() as AddressInfo;
  }

  /** Stops serving; the computer's screens (if it was assigned one) are stopped by `dispose`. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.assignment?.control.close();
  }

  /** Stops the computer's desktop, if it has one. */
  async dispose(): Promise<void> {
    await this.assignment?.screens.dispose();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const is = (route: { method: string; path: string }) => req.method === route.method && url.pathname === route.path;
    if (is(workerRoutes.assign)) return this.answerAssign(req, res);
    if (this.assignment) return this.assignment.control.handleRequest(req, res);
    if (is(workerRoutes.health)) {
      const health: WorkerHealth = {
        status: 'ok',
        computerId: null,
        uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
      };
      return sendJson(res, 200, health);
    }
    if (!this.poolToken.admits(req.headers.authorization)) return unauthenticated(res);
    const error = new WorkerHttpError('NOT_ASSIGNED', 'this pool worker serves no computer yet');
    sendJson(res, error.status, error.body());
  }

  private async answerAssign(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!this.poolToken.admits(req.headers.authorization)) return unauthenticated(res);
    try {
      const request = validate(workerRoutes.assign.request, await readJsonBody(req));
      // The first assignment wins (nothing awaits in between, so two at once cannot both be first).
      this.assignment ??= this.assign(request);
      const current = this.assignment;
      if (current.computerId !== request.computerId || !current.token.is(request.controlToken)) {
        throw new WorkerHttpError('ALREADY_ASSIGNED', 'this pool worker serves another computer');
      }
      sendJson(res, 200, { computerId: current.computerId, bindFence: current.control.bindTo(request.bindFence) });
    } catch (error) {
      if (error instanceof WorkerHttpError) return sendJson(res, error.status, error.body());
      this.log(`assigning failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      sendJson(res, 500, { error: { code: 'INTERNAL', message: 'the worker failed to take the computer; see its log' } });
    }
  }

  private assign(request: AssignRequest): Assignment {
    if (request.screenLimit > this.config.TEAM_SCREEN_LIMIT) {
      throw new WorkerHttpError(
        'SCREEN_LIMIT',
        `this worker runs at most ${this.config.TEAM_SCREEN_LIMIT} screens; ${request.screenLimit} were asked`,
      );
    }
    const config: WorkerEnv = {
      ...this.config,
      LAZYBOY_COMPUTER_ID: request.computerId,
      LAZYBOY_CONTROL_TOKEN: request.controlToken,
      TEAM_SCREEN_LIMIT: request.screenLimit,
    };
    const screens = (this.deps.makeScreens ?? screensOf)(config);
    const control = new ControlServer(config, {
      screens,
      log: (line) => console.error(`[worker ${request.computerId}] ${line}`),
    });
    this.log(`assigned to computer ${request.computerId}`);
    return { computerId: request.computerId, token: new BearerToken(request.controlToken), screens, control };
  }
}

function unauthenticated(res: http.ServerResponse): void {
  sendJson(res, 401, { error: { code: 'UNAUTHENTICATED', message: 'a valid pool token is required' } });
}
