import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import type { ServiceUser } from './service-user.js';

export interface ManagedProcessOptions {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** stdout and stderr are appended here (the file is 0600, a directory made for it 0700). */
  logFile: string;
  user?: ServiceUser | undefined;
  /** The signal that asks this program for a clean, quick shutdown. */
  stopSignal?: NodeJS.Signals;
}

/**
 * A child process in its own process group, so that a Ctrl-C in the terminal reaches only the
 * supervisor (which then stops children in order) and so that stopping kills grandchildren too.
 */
export class ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly stopSignal: NodeJS.Signals;
  private exitedAlready = false;

  constructor(options: ManagedProcessOptions) {
    this.name = options.name;
    this.stopSignal = options.stopSignal ?? 'SIGTERM';
    // Logs carry what the programs print (addresses, emails, errors with their inputs): only the owner reads them.
    mkdirSync(path.dirname(options.logFile), { recursive: true, mode: 0o700 });
    const log = openSync(options.logFile, 'a', 0o600);
    try {
      // A log an older version made 0644 is tightened too.
      fchmodSync(log, 0o600);
      this.child = spawn(options.command, options.args, {
        cwd: options.cwd,
        env: options.env ?? process.env,
        detached: true,
        stdio: ['ignore', log, log],
        uid: options.user?.uid,
        gid: options.user?.gid,
      });
    } finally {
      closeSync(log);
    }
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitedAlready = true;
        resolve({ code, signal });
      });
      this.child.once('error', () => {
        this.exitedAlready = true;
        resolve({ code: null, signal: null });
      });
    });
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name} did not start`);
    return this.child.pid;
  }

  get running(): boolean {
    return !this.exitedAlready;
  }

  /** Asks for a clean stop, then kills the whole group after `graceMs`. Resolves when it is gone. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running || this.child.pid === undefined) return;
    await stopProcessGroup(this.child.pid, this.stopSignal, graceMs, () => this.exited.then(() => undefined));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Stops a process group led by `pgid`: `signal` first, SIGKILL for whatever is left after `graceMs`.
 * `leaderGone` resolves when the leader has exited (by default: polled with kill 0).
 */
export async function stopProcessGroup(
  pgid: number,
  signal: NodeJS.Signals,
  graceMs: number,
  leaderGone: () => Promise<void> = () => waitUntil(() => !isAlive(pgid), graceMs + 5_000),
): Promise<void> {
  signalGroup(pgid, signal);
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
  const outcome = await Promise.race([leaderGone().then(() => 'gone' as const), timer]);
  // Children of the leader (Next.js workers, Postgres backends) may outlive it: clear the group.
  if (outcome === 'timeout' || groupAlive(pgid)) {
    signalGroup(pgid, 'SIGKILL');
    await leaderGone();
    await waitUntil(() => !groupAlive(pgid), 5_000);
  }
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
