import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { allWorkerRoutes, workerRoutes, type WorkerEnv } from '@lazyboy/contracts';
import type { ScreenManager } from '@lazyboy/desktop';
import { addBrowserRoutes } from './browser/browser-routes.js';
import { BrowserSessions } from './browser/browser-sessions.js';
import { addLoginFillRoutes } from './browser/login-fill-routes.js';
import { ScreenshotTracker } from './browser/screenshots.js';
import { ScreenFences } from './fencing/screen-fences.js';
import { SlotQueue } from './fencing/slot-queue.js';
import { ControlDispatch } from './http/control-dispatch.js';
import { Router } from './http/router.js';
import { ProfileLocks } from './screens/profile-locks.js';
import { addScreenRoutes } from './screens/screen-routes.js';
import { VncGateway } from './screens/vnc-gateway.js';
import type { WorkerContext } from './worker-context.js';
import { Workspace } from './workspace/workspace.js';
import { addWorkspaceRoutes } from './workspace/workspace-routes.js';

export interface ControlServerDeps {
  /** The computer's screens; created (and finally stopped) by whoever owns the process. */
  screens: ScreenManager;
  log?: (line: string) => void;
  /** A pool worker's: the computer's release route lets it go (see ControlDispatch). */
  release?: () => void;
}

/**
 * The worker's control API: HTTP + JSON on loopback (or the cluster network), every call but /healthz
 * authorised by the computer's bearer token. Routes live in screens/, browser/ (the vault's fill too) and workspace/.
 */
export class ControlServer {
  private readonly server: http.Server;
  private readonly router = new Router();
  private readonly dispatch: ControlDispatch;
  private readonly ctx: WorkerContext;
  private readonly log: (line: string) => void;
  private readonly vnc: VncGateway;

  constructor(
    private readonly config: WorkerEnv,
    deps: ControlServerDeps,
  ) {
    this.log = deps.log ?? ((line) => console.error(`[worker ${config.LAZYBOY_COMPUTER_ID}] ${line}`));
    this.dispatch = new ControlDispatch({
      computerId: config.LAZYBOY_COMPUTER_ID,
      token: config.LAZYBOY_CONTROL_TOKEN,
      router: this.router,
      log: this.log,
      ...(deps.release ? { release: deps.release } : {}),
    });
    this.ctx = {
      computerId: config.LAZYBOY_COMPUTER_ID,
      screens: deps.screens,
      fences: new ScreenFences(),
      queue: new SlotQueue(),
      profileLocks: new ProfileLocks(),
      browsers: new BrowserSessions(),
      screenshots: new ScreenshotTracker(),
      workspace: new Workspace(deps.screens, { shellBoundary: config.LAZYBOY_SHELL_BOUNDARY }),
    };
    addScreenRoutes(this.router, this.ctx);
    addBrowserRoutes(this.router, this.ctx);
    addLoginFillRoutes(this.router, this.ctx);
    addWorkspaceRoutes(this.router, this.ctx);
    // Every route of the contract has its handler here (health is answered before the token check).
    const unserved = allWorkerRoutes().filter((r) => r !== workerRoutes.health && !this.router.match(r.method, r.path));
    if (unserved.length > 0) throw new Error(`the worker serves no ${unserved.map((r) => `${r.method} ${r.path}`).join(', ')}`);
    this.vnc = new VncGateway(config.LAZYBOY_COMPUTER_ID, config.LAZYBOY_CONTROL_TOKEN, deps.screens, this.log);
    this.server = http.createServer((req, res) => void this.handleRequest(req, res));
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head));
  }

  /** One control call (what the server runs; a pool worker's server hands calls on once it is assigned). */
  handleRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    return this.dispatch.handle(req, res);
  }

  /** A websocket upgrade: the VNC view of a screen, or a 404. */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    if (!this.vnc.handles(req, socket, head)) socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
  }

  /** Binds the worker with `fence` (as the bind call does): a pool worker's assignment carries the first one. */
  bindTo(fence: number): number {
    return this.dispatch.bindFence.bind(fence);
  }

  async listen(): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.config.LAZYBOY_WORKER_PORT, this.config.LAZYBOY_WORKER_HOST, resolve);
    });
    return this.server.address() as AddressInfo;
  }

  /** Stops serving and drops the CDP connections; the screens keep running (their owner stops them). */
  async close(): Promise<void> {
    this.vnc.close();
    this.server.closeAllConnections();
    // A pool worker's control server never listened: closing it then only reports that, which is fine.
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.ctx.browsers.closeAll();
    await this.ctx.workspace.close();
  }
}
