import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { allWorkerRoutes, workerRoutes, type WorkerEnv, type WorkerHealth } from '@lazyboy/contracts';
import type { DisplayManager } from '@lazyboy/desktop';
import { addBrowserRoutes } from './browser/browser-routes.js';
import { BrowserSessions } from './browser/browser-sessions.js';
import { ScreenshotTracker } from './browser/screenshots.js';
import { ScreenFences } from './fencing/screen-fences.js';
import { SlotQueue } from './fencing/slot-queue.js';
import { WorkerHttpError } from './http/errors.js';
import { notFound, Router, sendJson } from './http/router.js';
import { ProfileLocks } from './screens/profile-locks.js';
import { addScreenRoutes } from './screens/screen-routes.js';
import { VncGateway } from './screens/vnc-gateway.js';
import type { WorkerContext } from './worker-context.js';
import { Workspace } from './workspace/workspace.js';
import { addWorkspaceRoutes } from './workspace/workspace-routes.js';

export interface ControlServerDeps {
  /** The computer's displays; created (and finally stopped) by whoever owns the process. */
  displays: DisplayManager;
  log?: (line: string) => void;
}

/**
 * The worker's control API: HTTP + JSON on loopback (or the cluster network), every call but /healthz
 * authorised by the computer's bearer token. Routes live in screens/, browser/ and workspace/.
 */
export class ControlServer {
  private readonly server: http.Server;
  private readonly tokenDigest: Buffer;
  private readonly startedAt = Date.now();
  private readonly router = new Router();
  private readonly ctx: WorkerContext;
  private readonly log: (line: string) => void;
  private readonly vnc: VncGateway;

  constructor(
    private readonly config: WorkerEnv,
    deps: ControlServerDeps,
  ) {
    this.tokenDigest = digest(config.LAZYBOY_CONTROL_TOKEN);
    this.log = deps.log ?? ((line) => console.error(`[worker ${config.LAZYBOY_COMPUTER_ID}] ${line}`));
    this.ctx = {
      computerId: config.LAZYBOY_COMPUTER_ID,
      displays: deps.displays,
      fences: new ScreenFences(),
      queue: new SlotQueue(),
      profileLocks: new ProfileLocks(),
      browsers: new BrowserSessions(),
      screenshots: new ScreenshotTracker(),
      workspace: new Workspace(deps.displays),
    };
    addScreenRoutes(this.router, this.ctx);
    addBrowserRoutes(this.router, this.ctx);
    addWorkspaceRoutes(this.router, this.ctx);
    // Every route of the contract has its handler here (health is answered before the token check).
    const unserved = allWorkerRoutes().filter((r) => r !== workerRoutes.health && !this.router.match(r.method, r.path));
    if (unserved.length > 0) throw new Error(`the worker serves no ${unserved.map((r) => `${r.method} ${r.path}`).join(', ')}`);
    this.vnc = new VncGateway(config.LAZYBOY_COMPUTER_ID, config.LAZYBOY_CONTROL_TOKEN, deps.displays, this.log);
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!this.vnc.handles(req, socket, head)) socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
    });
  }

  async listen(): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.config.LAZYBOY_WORKER_PORT, this.config.LAZYBOY_WORKER_HOST, resolve);
    });
    return this.server.address() as AddressInfo;
  }

  /** Stops serving and drops the CDP connections; the displays keep running (their owner stops them). */
  async close(): Promise<void> {
    this.vnc.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.ctx.browsers.closeAll();
    await this.ctx.workspace.close();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // Liveness needs no token: the pool driver asks it before it knows the worker is up.
    if (req.method === workerRoutes.health.method && url.pathname === workerRoutes.health.path) {
      const health: WorkerHealth = {
        status: 'ok',
        computerId: this.config.LAZYBOY_COMPUTER_ID,
        uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
      };
      return sendJson(res, 200, health);
    }
    if (!this.authorised(req.headers.authorization)) {
      return sendJson(res, 401, { error: { code: 'UNAUTHENTICATED', message: 'a valid control token is required' } });
    }
    try {
      const served = this.router.match(req.method ?? '', url.pathname);
      if (!served) throw notFound(req.method, url.pathname);
      sendJson(res, 200, await served(req, url));
    } catch (error) {
      if (error instanceof WorkerHttpError) return sendJson(res, error.status, error.body());
      this.log(
        `${req.method} ${url.pathname} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      sendJson(res, 500, { error: { code: 'INTERNAL', message: 'the worker failed to handle the call; see its log' } });
    }
  }

  private authorised(header: string | undefined): boolean {
    const match = /^Bearer (.+)$/.exec(header ?? '');
    // Compare fixed-length digests so neither the token's content nor its length leaks through timing.
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), this.tokenDigest);
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
