import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScreenManager } from '@lazyboy/desktop';
import { testDisplayBase } from './display-base.js';
import { startTestPages } from '../../../../libs/desktop/src/testing/test-site.js';
import { ControlServer } from '../control-server.js';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/**
 * A real worker for a suite: its own ScreenManager on free display numbers, the control server on a free
 * port, and a JSON client carrying the token. `stop()` leaves no process or directory behind.
 */
export class WorkerFixture {
  readonly token = randomBytes(24).toString('hex');
  readonly root: string;
  readonly screens: ScreenManager;
  readonly server: ControlServer;
  base = '';

  /** `root`: an earlier fixture's, to stand for the same computer's worker started again on its home. */
  constructor(computerId: string, screenLimit: number, root?: string) {
    this.root = root ?? path.join(os.tmpdir(), `lazyboy-worker-${randomBytes(6).toString('hex')}`);
    this.screens = new ScreenManager({
      computerId,
      homeDir: path.join(this.root, 'home'),
      runtimeDir: path.join(this.root, 'run'),
      displayBase: testDisplayBase(screenLimit, 300),
      screenLimit,
      stopGraceMs: 3_000,
      log: () => undefined,
    });
    this.server = new ControlServer(
      {
        LAZYBOY_WORKER_HOST: '127.0.0.1',
        LAZYBOY_WORKER_PORT: 0,
        LAZYBOY_CONTROL_TOKEN: this.token,
        LAZYBOY_COMPUTER_ID: computerId,
        TEAM_SCREEN_LIMIT: screenLimit,
        LAZYBOY_DISPLAY_BASE: this.screens.displayBase,
        LAZYBOY_DESKTOP_SESSION: 'window-manager',
        LAZYBOY_EGRESS_PRIVATE_NETWORKS: 'deny',
        LAZYBOY_EGRESS_ALLOWED_DOMAINS: null,
        LAZYBOY_SHELL_BOUNDARY: 'bubblewrap',
      },
      { screens: this.screens, log: () => undefined },
    );
  }

  async start(): Promise<void> {
    // 0755: the computer's own user (when the tests run as root) must walk through to its home.
    mkdirSync(this.root, { recursive: true, mode: 0o755 });
    chmodSync(this.root, 0o755);
    const address = await this.server.listen();
    this.base = `http://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    await this.shutDown();
    rmSync(this.root, { recursive: true, force: true });
  }

  /** What the worker does at SIGTERM (main.ts): stops serving, then the desktop; the home stays. */
  async shutDown(): Promise<void> {
    await this.server.close();
    await this.screens.dispose();
  }

  async post<T = Record<string, unknown>>(route: string, body: unknown, raw?: string): Promise<Answer<T>> {
    const res = await fetch(`${this.base}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: raw ?? JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  }

  async get<T = Record<string, unknown>>(route: string): Promise<Answer<T>> {
    const res = await fetch(`${this.base}${route}`, { headers: { authorization: `Bearer ${this.token}` } });
    return { status: res.status, body: (await res.json()) as T };
  }
}

/** A site for the browser to act on (`pages` maps paths to HTML), reachable from the computer's network island. */
export async function startSite(pages: Record<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const site = await startTestPages(pages);
  return { url: site.url.replace(/\/$/, ''), close: site.close };
}
