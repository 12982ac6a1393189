import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { workerRoutes } from '@lazyboy/contracts';
import { findFreeDisplayBase } from '@lazyboy/desktop';
import { findFreePort, groupAlive, ManagedProcess, repoRoot } from '@lazyboy/localstack';
import type { WorkerBinding } from '../computers/pool-driver.js';
import { WorkerCallError, WorkerClient } from '../computers/worker-client.js';
import { until } from '../../../../test/support/index.js';

/** How one worker process ended (the supervisor restarted it after each). */
export interface WorkerExit {
  port: number;
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface TestStaticWorkersOptions {
  count: number;
  /** Logs and the shared homes directory go here. */
  dir: string;
  /** Each worker's TEAM_SCREEN_LIMIT (default 1). */
  screenLimit?: number;
}

/**
 * The static pool's workers as docker compose runs them, for the driver's tests: `count` real pool-mode
 * worker processes (apps/worker/dist/main.js, LAZYBOY_WORKER_MODE=pool) on 127.0.0.1, each with its own
 * port and displays, all with one homes directory and the pool token, and each started again whenever it
 * exits (a compose service's restart policy; its process group is killed first, as a container's end
 * would). `close` stops them for good.
 */
export class TestStaticWorkers {
  readonly poolToken = randomBytes(32).toString('base64url');
  readonly homesDir: string;
  /** Every exit seen, in order. */
  readonly exits: WorkerExit[] = [];
  private readonly slots: Array<{ port: number; displayBase: number; process?: ManagedProcess }> = [];
  private closed = false;

  private constructor(private readonly options: TestStaticWorkersOptions) {
    this.homesDir = path.join(options.dir, 'homes');
    mkdirSync(this.homesDir, { recursive: true, mode: 0o755 });
  }

  static async start(options: TestStaticWorkersOptions): Promise<TestStaticWorkers> {
    const workers = new TestStaticWorkers(options);
    const screens = options.screenLimit ?? 1;
    // Displays in this Jest worker's own range (offset 900: the other suites take lower ones).
    let from = 1_000 + Number(process.env.JEST_WORKER_ID ?? 0) * 1_000 + 900;
    for (let i = 0; i < options.count; i += 1) {
      const displayBase = findFreeDisplayBase(screens, from);
      from = displayBase + screens + 1;
      workers.slots.push({ port: await findFreePort('127.0.0.1'), displayBase });
    }
    for (const slot of workers.slots) workers.spawn(slot);
    await workers.untilAllFree();
    return workers;
  }

  /** LAZYBOY_STATIC_WORKERS for these workers. */
  get entries(): string {
    return this.slots.map((slot) => `127.0.0.1:${slot.port}`).join(',');
  }

  get ports(): number[] {
    return this.slots.map((slot) => slot.port);
  }

  /** Until every worker is up and serves no computer (the ones released or killed have come back fresh). */
  async untilAllFree(timeoutMs = 60_000): Promise<void> {
    await until(
      'every static worker to be up and free',
      async () => {
        const healths = await Promise.all(this.slots.map((slot) => this.client(slot.port).health(1_000)));
        return healths.every((health) => health?.computerId === null);
      },
      { timeoutMs, everyMs: 100 },
    );
  }

  /** SIGKILL of the worker process serving `binding` (a crash); the supervisor starts a fresh one. */
  async kill(binding: WorkerBinding): Promise<void> {
    const slot = this.slots.find((s) => `http://127.0.0.1:${s.port}` === binding.endpoint.baseUrl);
    if (!slot?.process?.running) throw new Error(`no worker runs at ${binding.endpoint.baseUrl}`);
    process.kill(slot.process.pid, 'SIGKILL');
    await slot.process.exited;
  }

  /**
   * Whether the worker process that served `binding` still serves it: the worker at its address holds its
   * control token (answering, a newer binding's fence, or stopping its desktop). A fresh worker there does not.
   */
  async running(binding: WorkerBinding): Promise<boolean> {
    try {
      await new WorkerClient(binding.endpoint).call(workerRoutes.listScreens, {}, { timeoutMs: 5_000 });
      return true;
    } catch (error) {
      if (!(error instanceof WorkerCallError)) throw error;
      return error.code === 'STALE_BINDER' || error.code === 'COMPUTER_UNAVAILABLE';
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.process?.stop(10_000)));
  }

  private client(port: number): WorkerClient {
    return new WorkerClient({ baseUrl: `http://127.0.0.1:${port}`, token: this.poolToken });
  }

  private spawn(slot: { port: number; displayBase: number; process?: ManagedProcess }): void {
    const proc = new ManagedProcess({
      name: `static worker :${slot.port}`,
      command: process.execPath,
      args: [path.join(repoRoot, 'apps/worker/dist/main.js')],
      cwd: this.options.dir,
      env: {
        ...Object.fromEntries(
          ['PATH', 'LANG', 'HOME', 'TMPDIR'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
        ),
        LAZYBOY_WORKER_MODE: 'pool',
        LAZYBOY_WORKER_HOST: '127.0.0.1',
        LAZYBOY_WORKER_PORT: String(slot.port),
        LAZYBOY_POOL_TOKEN: this.poolToken,
        LAZYBOY_HOMES_DIR: this.homesDir,
        LAZYBOY_DISPLAY_BASE: String(slot.displayBase),
        TEAM_SCREEN_LIMIT: String(this.options.screenLimit ?? 1),
      },
      logFile: path.join(this.options.dir, 'logs', `worker-${slot.port}.log`),
    });
    slot.process = proc;
    void proc.exited.then(({ code, signal }) => {
      this.exits.push({ port: slot.port, code, signal });
      // What a container's end does: nothing the worker started lives on.
      try {
        if (groupAlive(proc.pid)) process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
      if (this.closed) return;
      // compose's restart policy waits 100 ms before the first restart.
      setTimeout(() => {
        if (!this.closed) this.spawn(slot);
      }, 100);
    });
  }
}
