import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { workerRoutes, type AssignRequest, type PoolWorkerEnv, type WorkerEnv, type WorkerHealth } from '@lazyboy/contracts';
import type { ScreenManager } from '@lazyboy/desktop';
import { screensOf, type ScreensPlacement } from '../computer-screens.js';
import { ControlServer } from '../control-server.js';
import { BearerToken } from '../http/bearer-token.js';
import { WorkerHttpError } from '../http/errors.js';
import { readJsonBody, validate } from '../http/json-body.js';
import { sendJson } from '../http/router.js';
import { settledWithin } from '../settled-within.js';
import { assertHomesDir, homeIn } from './homes-dir.js';

/** How long a release waits for the control server (shells, CDP clients) before it stops the desktop regardless. */
const CONTROL_CLOSE_MS = 3_000;

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
  makeScreens?: (config: WorkerEnv, placement: ScreensPlacement) => ScreenManager;
  /**
   * Ends the process once a released computer's desktop is stopped (main: process.exit; 0, or 1 when
   * stopping failed). Unset (tests): the worker just stops serving.
   */
  exit?: (code: number) => void;
}

/**
 * A warm worker of a cluster's pool: a ready pod whose process is up but serves no computer yet. Until the
 * API assigns it one (`POST /pool/assign`, authorised by the pool's shared token) it answers only its
 * health (computerId null) and that assignment; from then on it is that computer's worker, every call
 * authorised by the control token the assignment carried and handed to the computer's ControlServer. An
 * assignment repeated with the same computer and token (its answer was lost) is answered again; any other
 * is refused, so two API replicas can never both make one pod theirs.
 *
 * A static pool (docker compose) reuses its workers: the release route (control token and bind fence, like
 * every control call) makes the worker stop its desktop and end its process, and the container's restart
 * brings a fresh warm one up. Its homes are directories of one shared volume (LAZYBOY_HOMES_DIR), named by
 * the assignment's home key; a pod's home is its own volume (LAZYBOY_COMPUTER_HOME), as before.
 */
export class PoolWorker {
  private readonly server: http.Server;
  private readonly poolToken: BearerToken;
  private readonly log: (line: string) => void;
  private readonly startedAt = Date.now();
  private assignment: Assignment | undefined;
  /** Set once the computer is released: the desktop is being stopped, then the process ends. */
  private released: Promise<void> | undefined;

  constructor(
    private readonly config: PoolWorkerEnv,
    private readonly deps: PoolWorkerDeps = {},
  ) {
    this.poolToken = new BearerToken(config.LAZYBOY_POOL_TOKEN);
    this.log = deps.log ?? ((line) => console.error(`[pool worker] ${line}`));
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      if (this.assignment && !this.released) this.assignment.control.handleUpgrade(req, socket, head);
      else socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
    });
  }

  /** The computer it serves, once assigned. */
  get computerId(): string | undefined {
    return this.assignment?.computerId;
  }

  async listen(): Promise<AddressInfo> {
    // A homes volume that is not mounted would put homes in the container, lost when it is recreated.
    if (this.config.LAZYBOY_HOMES_DIR !== undefined) assertHomesDir(this.config.LAZYBOY_HOMES_DIR);
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
    if (this.assignment && this.released && !is(workerRoutes.health) && !is(workerRoutes.release)) {
      // Health still answers as the computer until its desktop is gone (the driver waits for that); a
      // repeated release (its answer was lost) is answered again; nothing else runs any more.
      if (!this.assignment.token.admits(req.headers.authorization)) return unauthenticated(res, 'control');
      const error = new WorkerHttpError('COMPUTER_UNAVAILABLE', `computer ${this.assignment.computerId} is being released`);
      return sendJson(res, error.status, error.body());
    }
    if (this.assignment) return this.assignment.control.handleRequest(req, res);
    if (is(workerRoutes.health)) {
      const health: WorkerHealth = {
        status: 'ok',
        computerId: null,
        uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
      };
      return sendJson(res, 200, health);
    }
    if (!this.poolToken.admits(req.headers.authorization)) return unauthenticated(res, 'pool');
    const error = new WorkerHttpError('NOT_ASSIGNED', 'this pool worker serves no computer yet');
    sendJson(res, error.status, error.body());
  }

  private async answerAssign(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!this.poolToken.admits(req.headers.authorization)) return unauthenticated(res, 'pool');
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
      ...this.homeOf(request),
    };
    // Every computer's home is mounted here: the desktop's programs see none but this one (screensOf).
    const screens = (this.deps.makeScreens ?? screensOf)(config, { sharedHomesDir: this.config.LAZYBOY_HOMES_DIR });
    const control = new ControlServer(config, {
      screens,
      log: (line) => console.error(`[worker ${request.computerId}] ${line}`),
      release: () => void this.release(),
    });
    this.log(`assigned to computer ${request.computerId}`);
    return { computerId: request.computerId, token: new BearerToken(request.controlToken), screens, control };
  }

  /**
   * The computer's home, when the assignment names one: `<LAZYBOY_HOMES_DIR>/<homeKey>`, made 0700 when it
   * is new. A home key without a homes directory is refused: ignoring it would give every computer this
   * worker serves the one LAZYBOY_COMPUTER_HOME.
   */
  private homeOf(request: AssignRequest): Pick<WorkerEnv, 'LAZYBOY_COMPUTER_HOME'> {
    if (request.homeKey === undefined) return {};
    const homesDir = this.config.LAZYBOY_HOMES_DIR;
    if (homesDir === undefined) {
      throw new WorkerHttpError(
        'NO_HOMES_DIR',
        'this pool worker has no LAZYBOY_HOMES_DIR, so it cannot find the home the assignment names; set it to the homes volume',
      );
    }
    return { LAZYBOY_COMPUTER_HOME: homeIn(homesDir, request.homeKey) };
  }

  /**
   * Lets the computer go: the control server closes (its shells end, its CDP clients drop; bounded, as
   * on SIGTERM), the desktop stops, then the server and the process end. Health answers as the computer
   * until the desktop is gone, so whoever released it knows when nothing of it runs any more.
   */
  private release(): Promise<void> {
    const assignment = this.assignment;
    if (!assignment) return Promise.resolve();
    this.released ??= (async () => {
      this.log(`computer ${assignment.computerId} released; stopping its desktop`);
      let code = 0;
      try {
        await settledWithin(assignment.control.close(), CONTROL_CLOSE_MS, (line) =>
          this.log(`closing the control server failed: ${line}`),
        );
        await assignment.screens.dispose();
      } catch (error) {
        code = 1;
        this.log(`stopping the desktop failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
      this.server.closeAllConnections();
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.deps.exit?.(code);
    })();
    return this.released;
  }
}

function unauthenticated(res: http.ServerResponse, token: 'pool' | 'control'): void {
  sendJson(res, 401, { error: { code: 'UNAUTHENTICATED', message: `a valid ${token} token is required` } });
}
