import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { Logger } from '@nestjs/common';
import { workerRoutes } from '@lazyboy/contracts';
import { clearComputerLeftovers, findFreeDisplayBase, readCmdline, readEnviron, readProcStat } from '@lazyboy/desktop';
import { findFreePort, groupAlive, isAlive, ManagedProcess, stopProcessGroup, tail } from '@lazyboy/localstack';
import { PoolDriver, type ComputerSpec, type LostWorker, type WorkerBinding } from './pool-driver.js';
import { WorkerClient } from './worker-client.js';

export interface LocalPoolDriverOptions {
  /** The built worker (apps/worker/dist/main.js). */
  workerScript: string;
  /** Homes live at <homesDir>/<homeKey>. */
  homesDir: string;
  /** Worker logs (computer-<id>.log); default <homesDir>/../logs. */
  logsDir?: string;
  /** Lowest X display base handed out; each computer takes `screenLimit` displays above its base. */
  displayBaseFrom: number;
  /**
   * Time between SIGTERM and SIGKILL of a worker's process group. Default 8 s: the worker stops its desktop
   * within ~5 s, and the whole API must be done inside the 10 s `lazyboy up` gives it.
   */
  stopGraceMs?: number;
  /** How long a new worker may take to answer /healthz. Default 60 s. */
  startTimeoutMs?: number;
  /** Extra environment for workers (e.g. LAZYBOY_DESKTOP_SESSION). */
  env?: NodeJS.ProcessEnv;
}

interface LocalWorker {
  computerId: string;
  pid: number;
  /** Set when this process spawned it (ManagedProcess knows when it exits). */
  process?: ManagedProcess;
  /** Its displays (base+1 … base+count); unknown for an adopted worker started without them in its environment. */
  displays?: DisplayRange;
  /** The computer's home: what its desktop's processes and temporary folders are found by once the worker is gone. */
  homeDir?: string;
  /** The binding it serves now (its fence changes on a takeover). */
  binding: WorkerBinding;
}

/** How often adopted workers (not our children: no exit event) are looked at, for the lost signal. */
const ADOPTED_CHECK_MS = 1_000;

/** The X displays base+1 … base+count of one computer. */
interface DisplayRange {
  base: number;
  count: number;
}

/** Environment a worker inherits from the API: nothing secret (no database, Redis, vault or model keys). */
const INHERITED_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'HOME', 'TMPDIR', 'NODE_ENV', 'LAZYBOY_DESKTOP_SESSION'];

/**
 * The embedded pool: each computer is an `apps/worker` process on this host, in its own process group,
 * with a fresh control token and its own range of X displays. Workers belong to the API process that
 * started (or adopted) them: `shutdown()` stops them all, so no desktop outlives the API.
 */
export class LocalPoolDriver extends PoolDriver {
  readonly name = 'local' as const;
  private readonly logger = new Logger('LocalPoolDriver');
  private readonly workers = new Map<string, LocalWorker>();
  private readonly reserved = new Set<DisplayRange>();
  private readonly host = hostname();
  private readonly homesDir: string;
  private readonly logsDir: string;
  private readonly lostListeners = new Set<(lost: LostWorker) => void>();
  private adoptedCheck: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: LocalPoolDriverOptions) {
    super();
    this.homesDir = path.resolve(options.homesDir);
    this.logsDir = path.resolve(options.logsDir ?? path.join(path.dirname(this.homesDir), 'logs'));
  }

  async provision(spec: ComputerSpec, signal?: AbortSignal): Promise<WorkerBinding> {
    if (this.closed) throw new Error('the API is shutting down');
    if (!existsSync(this.options.workerScript)) {
      throw new Error(`the worker is not built (${this.options.workerScript} is missing); run the set-up (npm run build)`);
    }
    const running = this.workers.get(spec.computerId);
    if (running && isAlive(running.pid)) {
      throw new Error(`computer ${spec.computerId} already has a worker (pid ${running.pid}); stop it first`);
    }
    mkdirSync(this.homesDir, { recursive: true, mode: 0o755 });
    mkdirSync(this.logsDir, { recursive: true, mode: 0o700 });
    const displays = this.reserveDisplays(spec.screenLimit);
    try {
      // The port is free when picked but another program may take it before the worker binds: one retry.
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await this.start(spec, displays, signal);
        } catch (error) {
          if (attempt >= 2 || this.closed || signal?.aborted || !(error instanceof WorkerExitedError)) throw error;
          this.logger.warn(`worker of ${spec.computerId} exited during start-up; trying another port`);
        }
      }
    } finally {
      this.reserved.delete(displays);
    }
  }

  async bind(binding: WorkerBinding, bindFence: bigint): Promise<WorkerBinding> {
    const bound = await this.fenceWorker(binding, bindFence);
    const known = this.workers.get(binding.computerId);
    if (known && known.binding.owner === binding.owner) known.binding = bound;
    return bound;
  }

  release(binding: WorkerBinding): void {
    const known = this.workers.get(binding.computerId);
    if (known?.binding.owner === binding.owner) this.workers.delete(binding.computerId);
  }

  onLost(listener: (lost: LostWorker) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  async stop(binding: WorkerBinding): Promise<void> {
    const known = this.workers.get(binding.computerId);
    const pid = known?.pid ?? this.pidOf(binding);
    this.workers.delete(binding.computerId);
    if (pid !== undefined && this.isWorkerProcess(pid)) {
      await this.stopWorker({
        computerId: binding.computerId,
        pid,
        binding,
        ...known,
        homeDir: known?.homeDir ?? this.homeOf(pid),
      });
    } else if (known?.homeDir) {
      // The worker died on its own (killed, crashed): whatever of its desktop it left still goes.
      await this.clearLeftovers(binding.computerId, known.homeDir);
    }
  }

  /**
   * A worker whose API went away (its parent is now init) is taken over by this process; one whose parent
   * is alive belongs to another API process on this host (another replica, another test) and is left alone.
   */
  async adopt(binding: WorkerBinding): Promise<boolean> {
    if (this.workers.has(binding.computerId)) return true;
    const pid = this.pidOf(binding);
    if (pid === undefined || !this.isWorkerProcess(pid)) return false;
    const parent = parentPid(pid);
    if (parent !== 1 && parent !== process.pid) return false;
    const worker: LocalWorker = { computerId: binding.computerId, pid, displays: displaysOf(pid), binding };
    const homeDir = this.homeOf(pid);
    if (homeDir) worker.homeDir = homeDir;
    this.workers.set(binding.computerId, worker);
    this.adoptedCheck ??= setInterval(() => this.checkAdopted(), ADOPTED_CHECK_MS).unref();
    return true;
  }

  /**
   * Forgets every worker without stopping it: what this API process dying leaves behind (tests of the
   * takeover use it to stand for a crashed replica).
   */
  orphanAll(): void {
    this.closed = true;
    this.workers.clear();
    clearInterval(this.adoptedCheck);
  }

  /** Pids of the workers this process runs (tests check none is left). */
  workerPids(): number[] {
    return [...this.workers.values()].map((w) => w.pid);
  }

  /** Stops every worker this process started or adopted. */
  async shutdown(): Promise<WorkerBinding[]> {
    this.closed = true;
    clearInterval(this.adoptedCheck);
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(
      workers.map((w) =>
        this.stopWorker(w).catch((error: unknown) =>
          this.logger.error(`stopping the worker of ${w.computerId} (pid ${w.pid}) failed: ${(error as Error).message}`),
        ),
      ),
    );
    return workers.map((w) => w.binding);
  }

  private async start(spec: ComputerSpec, displays: DisplayRange, signal?: AbortSignal): Promise<WorkerBinding> {
    const port = await findFreePort('127.0.0.1');
    if (this.closed) throw new Error('the API is shutting down');
    const token = randomBytes(32).toString('base64url');
    const logFile = path.join(this.logsDir, `computer-${spec.computerId}.log`);
    const homeDir = path.join(this.homesDir, spec.homeKey);
    const inherited = Object.fromEntries(INHERITED_ENV.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
    const proc = new ManagedProcess({
      name: `worker ${spec.computerId}`,
      command: process.execPath,
      args: [this.options.workerScript],
      cwd: path.dirname(this.homesDir),
      env: {
        ...inherited,
        ...this.options.env,
        LAZYBOY_WORKER_HOST: '127.0.0.1',
        LAZYBOY_WORKER_PORT: String(port),
        LAZYBOY_CONTROL_TOKEN: token,
        LAZYBOY_COMPUTER_ID: spec.computerId,
        LAZYBOY_COMPUTER_HOME: homeDir,
        LAZYBOY_DISPLAY_BASE: String(displays.base),
        TEAM_SCREEN_LIMIT: String(spec.screenLimit),
      },
      logFile,
    });
    const binding: WorkerBinding = {
      computerId: spec.computerId,
      endpoint: { baseUrl: `http://127.0.0.1:${port}`, token, bindFence: Number(spec.bindFence) },
      owner: `local:${this.host}:${proc.pid}`,
      bindFence: spec.bindFence,
    };
    const worker: LocalWorker = { computerId: spec.computerId, pid: proc.pid, process: proc, displays, homeDir, binding };
    this.workers.set(spec.computerId, worker);
    try {
      await this.waitHealthy(binding, proc, logFile, signal);
      await new WorkerClient(binding.endpoint).call(
        workerRoutes.bind,
        { bindFence: Number(spec.bindFence) },
        { timeoutMs: 10_000 },
      );
      if (this.closed) throw new Error('the API is shutting down');
      void proc.exited.then(() => this.exited(worker, 'its process exited'));
      return binding;
    } catch (error) {
      this.workers.delete(spec.computerId);
      await this.stopWorker(worker);
      throw error;
    }
  }

  private async waitHealthy(binding: WorkerBinding, proc: ManagedProcess, logFile: string, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 60_000);
    for (;;) {
      if (!proc.running) throw new WorkerExitedError(`the worker exited during start-up:\n${tail(logFile)}`);
      signal?.throwIfAborted();
      // Not listening yet, or another computer's worker on a reused port: wait on.
      const health = await new WorkerClient(binding.endpoint).health();
      if (health?.computerId === binding.computerId) return;
      if (Date.now() > deadline) throw new Error(`the worker did not answer within the start-up time:\n${tail(logFile)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * A worker of ours ended without being stopped (stop and shutdown forget it first): what it left goes,
   * and the listeners hear which binding it served.
   */
  private exited(worker: LocalWorker, reason: string): void {
    if (this.workers.get(worker.computerId) !== worker) return;
    this.workers.delete(worker.computerId);
    this.logger.warn(`the worker of computer ${worker.computerId} (pid ${worker.pid}) went away: ${reason}`);
    const cleared = worker.homeDir ? this.clearLeftovers(worker.computerId, worker.homeDir) : Promise.resolve();
    void cleared
      .catch((error: unknown) => this.logger.warn(`clearing after ${worker.computerId} failed: ${(error as Error).message}`))
      .then(() => {
        const lost: LostWorker = {
          computerId: worker.computerId,
          owner: worker.binding.owner,
          bindFence: worker.binding.bindFence,
          reason,
        };
        for (const listener of this.lostListeners) listener(lost);
      });
  }

  private checkAdopted(): void {
    for (const worker of [...this.workers.values()]) {
      if (!worker.process && !this.isWorkerProcess(worker.pid)) this.exited(worker, 'its process is gone');
    }
  }

  /**
   * SIGTERM to the worker's group (the worker stops its desktop, continuing a suspended one first), SIGKILL
   * after the grace; then whatever of the desktop is still there goes too. A worker killed before it was
   * done leaves processes that are not its children any more (the session bus, Chromium's crash handlers,
   * dbus-activated services), SIGSTOPped when the computer was suspended: they are found by the home.
   */
  private async stopWorker(worker: LocalWorker): Promise<void> {
    const graceMs = this.options.stopGraceMs ?? 8_000;
    if (worker.process) await worker.process.stop(graceMs);
    else if (groupAlive(worker.pid)) await stopProcessGroup(worker.pid, 'SIGTERM', graceMs);
    if (worker.homeDir) await this.clearLeftovers(worker.computerId, worker.homeDir);
  }

  private async clearLeftovers(computerId: string, homeDir: string): Promise<void> {
    const cleared = await clearComputerLeftovers({ home: homeDir });
    if (cleared.processes > 0) {
      this.logger.warn(`ended ${cleared.processes} process(es) the worker of computer ${computerId} left behind`);
    }
  }

  /** The home a worker of ours serves (its environment), only when it lies in our homes directory. */
  private homeOf(pid: number): string | undefined {
    const home = readEnviron(pid)?.get('LAZYBOY_COMPUTER_HOME');
    if (!home) return undefined;
    const resolved = path.resolve(path.dirname(this.homesDir), home);
    return path.dirname(resolved) === this.homesDir ? resolved : undefined;
  }

  /**
   * The first base whose displays all look free and that no worker of this process may use: a worker
   * starts its screens lazily, so displays it has not started yet leave no lock file to see.
   */
  private reserveDisplays(count: number): DisplayRange {
    const held = [...this.reserved, ...[...this.workers.values()].flatMap((w) => (w.displays ? [w.displays] : []))];
    let from = this.options.displayBaseFrom;
    for (;;) {
      const base = findFreeDisplayBase(count, from);
      const clash = held.find((other) => base < other.base + other.count && other.base < base + count);
      if (!clash) {
        const range = { base, count };
        this.reserved.add(range);
        return range;
      }
      from = clash.base + clash.count;
    }
  }

  /** The worker's pid from a binding made on this host by this driver. */
  private pidOf(binding: WorkerBinding): number | undefined {
    const match = /^local:(.+):(\d+)$/.exec(binding.owner);
    if (!match || match[1] !== this.host) return undefined;
    return Number(match[2]);
  }

  /** Guards against pid reuse: only a process running our worker script is ever signalled. */
  private isWorkerProcess(pid: number): boolean {
    return readCmdline(pid)?.includes(this.options.workerScript) ?? false;
  }
}

class WorkerExitedError extends Error {
  override readonly name = 'WorkerExitedError';
}

/** The displays an adopted worker was started with (its environment: LAZYBOY_DISPLAY_BASE, TEAM_SCREEN_LIMIT). */
function displaysOf(pid: number): DisplayRange | undefined {
  const env = readEnviron(pid);
  if (!env) return undefined;
  const base = Number(env.get('LAZYBOY_DISPLAY_BASE'));
  const count = Number(env.get('TEAM_SCREEN_LIMIT') ?? 1);
  return Number.isInteger(base) && Number.isInteger(count) && count > 0 ? { base, count } : undefined;
}

function parentPid(pid: number): number | undefined {
  return readProcStat(pid)?.ppid;
}
