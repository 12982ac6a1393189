import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { Logger } from '@nestjs/common';
import { screensResponseSchema } from '@lazyboy/contracts';
import { findFreePort, groupAlive, isAlive, ManagedProcess, stopProcessGroup, tail } from '@lazyboy/localstack';
import { PoolDriver, type ComputerSpec, type WorkerBinding } from './pool-driver.js';
import { WorkerClient, type WorkerEndpoint } from './worker-client.js';

export interface LocalPoolDriverOptions {
  /** The built worker (apps/worker/dist/main.js). */
  workerScript: string;
  /** Homes live at <homesDir>/<homeKey>; worker logs next to it in <homesDir>/../logs. */
  homesDir: string;
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
  displayBase?: number;
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
  private readonly reservedBases = new Set<number>();
  private readonly host = hostname();
  private readonly homesDir: string;
  private readonly logsDir: string;
  private closed = false;

  constructor(private readonly options: LocalPoolDriverOptions) {
    super();
    this.homesDir = path.resolve(options.homesDir);
    this.logsDir = path.join(path.dirname(this.homesDir), 'logs');
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
    mkdirSync(this.logsDir, { recursive: true });
    const displayBase = this.reserveDisplayBase(spec.screenLimit);
    try {
      // The port is free when picked but another program may take it before the worker binds: one retry.
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await this.start(spec, displayBase, signal);
        } catch (error) {
          if (attempt >= 2 || this.closed || signal?.aborted || !(error instanceof WorkerExitedError)) throw error;
          this.logger.warn(`worker of ${spec.computerId} exited during start-up; trying another port`);
        }
      }
    } finally {
      this.reservedBases.delete(displayBase);
    }
  }

  async suspend(binding: WorkerBinding): Promise<void> {
    await new WorkerClient(binding.endpoint).post('/computer/suspend', {}, { timeoutMs: 30_000 });
  }

  async wake(binding: WorkerBinding): Promise<void> {
    await new WorkerClient(binding.endpoint).post('/computer/wake', {}, { timeoutMs: 60_000 });
  }

  async stop(binding: WorkerBinding): Promise<void> {
    const known = this.workers.get(binding.computerId);
    const pid = known?.pid ?? this.pidOf(binding);
    this.workers.delete(binding.computerId);
    if (pid === undefined || !this.isWorkerProcess(pid)) return;
    await this.stopGroup(pid, known?.process);
  }

  endpoint(binding: WorkerBinding): WorkerEndpoint {
    return binding.endpoint;
  }

  async health(binding: WorkerBinding): Promise<boolean> {
    try {
      const screens = screensResponseSchema.parse(await new WorkerClient(binding.endpoint).get('/screens', { timeoutMs: 5_000 }));
      return screens.computerId === binding.computerId;
    } catch {
      return false;
    }
  }

  /**
   * A worker whose API went away (its parent is now init) is taken over by this process; one whose parent
   * is alive belongs to another API process on this host (another replica, another test) and is left alone.
   */
  adopt(binding: WorkerBinding): boolean {
    if (this.workers.has(binding.computerId)) return true;
    const pid = this.pidOf(binding);
    if (pid === undefined || !this.isWorkerProcess(pid)) return false;
    const parent = parentPid(pid);
    if (parent !== 1 && parent !== process.pid) return false;
    this.workers.set(binding.computerId, { computerId: binding.computerId, pid });
    return true;
  }

  /** Pids of the workers this process runs (tests check none is left). */
  workerPids(): number[] {
    return [...this.workers.values()].map((w) => w.pid);
  }

  /** Stops every worker this process started or adopted. */
  async shutdown(): Promise<string[]> {
    this.closed = true;
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(
      workers.map((w) =>
        this.stopGroup(w.pid, w.process).catch((error: unknown) =>
          this.logger.error(`stopping the worker of ${w.computerId} (pid ${w.pid}) failed: ${(error as Error).message}`),
        ),
      ),
    );
    return workers.map((w) => w.computerId);
  }

  private async start(spec: ComputerSpec, displayBase: number, signal?: AbortSignal): Promise<WorkerBinding> {
    const port = await findFreePort('127.0.0.1');
    if (this.closed) throw new Error('the API is shutting down');
    const token = randomBytes(32).toString('base64url');
    const logFile = path.join(this.logsDir, `computer-${spec.computerId}.log`);
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
        LAZYBOY_COMPUTER_HOME: path.join(this.homesDir, spec.homeKey),
        LAZYBOY_DISPLAY_BASE: String(displayBase),
        TEAM_SCREEN_LIMIT: String(spec.screenLimit),
      },
      logFile,
    });
    const worker: LocalWorker = { computerId: spec.computerId, pid: proc.pid, process: proc, displayBase };
    this.workers.set(spec.computerId, worker);
    const binding: WorkerBinding = {
      computerId: spec.computerId,
      endpoint: { baseUrl: `http://127.0.0.1:${port}`, token },
      owner: `local:${this.host}:${proc.pid}`,
    };
    try {
      await this.waitHealthy(binding, proc, logFile, signal);
      if (this.closed) throw new Error('the API is shutting down');
      return binding;
    } catch (error) {
      this.workers.delete(spec.computerId);
      await this.stopGroup(proc.pid, proc);
      throw error;
    }
  }

  private async waitHealthy(binding: WorkerBinding, proc: ManagedProcess, logFile: string, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 60_000);
    for (;;) {
      if (!proc.running) throw new WorkerExitedError(`the worker exited during start-up:\n${tail(logFile)}`);
      signal?.throwIfAborted();
      try {
        const res = await fetch(`${binding.endpoint.baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
        const body = (await res.json()) as { computerId?: unknown };
        if (res.ok && body.computerId === binding.computerId) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`the worker did not answer within the start-up time:\n${tail(logFile)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async stopGroup(pid: number, proc?: ManagedProcess): Promise<void> {
    const graceMs = this.options.stopGraceMs ?? 8_000;
    if (proc) await proc.stop(graceMs);
    else if (groupAlive(pid)) await stopProcessGroup(pid, 'SIGTERM', graceMs);
  }

  /** The first base whose displays all look free and that no computer booting in this process holds. */
  private reserveDisplayBase(count: number): number {
    const taken = (base: number) =>
      [
        ...this.reservedBases,
        ...[...this.workers.values()].flatMap((w) => (w.displayBase === undefined ? [] : [w.displayBase])),
      ].some((other) => base < other + count && other < base + count);
    for (let base = this.options.displayBaseFrom; base + count < 60_000; base += count) {
      if (taken(base)) continue;
      let free = true;
      for (let n = base + 1; n <= base + count && free; n += 1) {
        free = !existsSync(`/tmp/.X${n}-lock`) && !existsSync(`/tmp/.X11-unix/X${n}`);
      }
      if (free) {
        this.reservedBases.add(base);
        return base;
      }
    }
    throw new Error(`no ${count} free X displays above :${this.options.displayBaseFrom}`);
  }

  /** The worker's pid from a binding made on this host by this driver. */
  private pidOf(binding: WorkerBinding): number | undefined {
    const match = /^local:(.+):(\d+)$/.exec(binding.owner);
    if (!match || match[1] !== this.host) return undefined;
    return Number(match[2]);
  }

  /** Guards against pid reuse: only a process running our worker script is ever signalled. */
  private isWorkerProcess(pid: number): boolean {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(this.options.workerScript);
    } catch {
      return false;
    }
  }
}

class WorkerExitedError extends Error {
  override readonly name = 'WorkerExitedError';
}

function parentPid(pid: number): number | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may contain spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}
