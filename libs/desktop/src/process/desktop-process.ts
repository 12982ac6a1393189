import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { groupMembers, processGone, readProcStat } from './proc-table.js';
import { launchSpec, type RunAs } from './run-as.js';
import type { SandboxLayout } from '../workspace/sandbox-args.js';
import { sendSignal, signalGroup } from './signals.js';
import { pollUntil } from './wait.js';

export interface DesktopProcessOptions {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** stdout and stderr are appended here. */
  logFile: string;
  runAs?: RunAs | undefined;
  /**
   * Run inside bubblewrap with this view of the file system (`newSession: false`, so the group stays this
   * process's). Its extra pipes pass through to the program.
   */
  sandbox?: SandboxLayout | undefined;
  /**
   * Pipes on the child's fds 3, 4, …: Xvfb's -displayfd reports readiness on fd 3; Chromium's
   * --remote-debugging-pipe reads CDP from fd 3 and writes it to fd 4.
   */
  extraPipes?: 0 | 1 | 2;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class ProcessExitedError extends Error {
  override readonly name = 'ProcessExitedError';
  constructor(
    readonly processName: string,
    readonly exit: ProcessExit,
    logTail: string,
  ) {
    super(`${processName} exited (${describeExit(exit)})${logTail ? `: ${logTail}` : ''}`);
  }
}

/**
 * A child in its own process group, so that a signal to the group reaches everything it forked
 * (Chromium's zygotes and renderers, websockify's per-connection children) and nothing else.
 */
export class DesktopProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  readonly exited: Promise<ProcessExit>;
  /** The child's extra pipes by fd number (3, 4); each is a socket the worker may read and write. */
  readonly pipes: ReadonlyMap<number, Readable & Writable>;
  private exit: ProcessExit | undefined;

  private constructor(options: DesktopProcessOptions, child: ChildProcess, pid: number) {
    this.name = options.name;
    this.pid = pid;
    this.logFile = options.logFile;
    const pipes = new Map<number, Readable & Writable>();
    for (const fd of [3, 4]) {
      const stream = child.stdio[fd];
      if (stream && 'read' in stream) pipes.set(fd, stream as Readable & Writable);
    }
    this.pipes = pipes;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  /** Spawns the process; rejects when it cannot be started at all (missing binary, bad cwd). */
  static async start(options: DesktopProcessOptions): Promise<DesktopProcess> {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    const log = openSync(options.logFile, 'a');
    let child: ChildProcess;
    const launch = launchSpec(options.command, options.args, options.runAs, options.sandbox);
    const extra = Array.from({ length: options.extraPipes ?? 0 }, () => 'pipe' as const);
    try {
      child = spawn(launch.command, launch.args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ['ignore', log, log, ...extra],
        uid: launch.uid,
        gid: launch.gid,
      });
    } finally {
      closeSync(log);
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new Error(`cannot start ${options.name} (${options.command}): ${error.message}`)));
    });
    if (child.pid === undefined) throw new Error(`cannot start ${options.name}: no pid`);
    return new DesktopProcess(options, child, child.pid);
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  get exitInfo(): ProcessExit | undefined {
    return this.exit;
  }

  /** Error describing the exit, with the end of the log; undefined while the process runs. */
  exitError(): ProcessExitedError | undefined {
    return this.exit ? new ProcessExitedError(this.name, this.exit, logTail(this.logFile)) : undefined;
  }

  /** Signals the whole group (SIGSTOP/SIGCONT for suspend and wake). */
  signalGroup(signal: NodeJS.Signals): void {
    if (groupMembers(this.pid).length > 0) signalGroup(this.pid, signal);
  }

  /** SIGTERM to the group, SIGKILL to whatever is left after `graceMs`; resolves when the group is empty. */
  async stop(graceMs: number): Promise<void> {
    await stopProcessGroup(this.pid, graceMs, this.exited);
  }
}

/**
 * Stops the process group led by `pgid`. SIGCONT follows SIGTERM because a suspended (SIGSTOPped)
 * process only acts on its pending SIGTERM once it runs again.
 */
export async function stopProcessGroup(pgid: number, graceMs: number, leaderExited?: Promise<unknown>): Promise<void> {
  if (groupMembers(pgid).length === 0) {
    await leaderExited;
    return;
  }
  signalGroup(pgid, 'SIGTERM');
  signalGroup(pgid, 'SIGCONT');
  const empty = await pollUntil(() => groupMembers(pgid).length === 0, graceMs);
  if (!empty) {
    signalGroup(pgid, 'SIGKILL');
    await pollUntil(() => groupMembers(pgid).length === 0, 5_000);
  }
  await leaderExited;
}

/**
 * Stops single processes that are not (or no longer) in a group we lead: SIGTERM (and SIGCONT, in case they
 * are frozen), then SIGKILL for what is still there after `graceMs`.
 */
export async function stopProcesses(pids: number[], graceMs: number): Promise<void> {
  const live = pids.filter((pid) => !processGone(pid));
  if (live.length === 0) return;
  for (const pid of live) {
    sendSignal(pid, 'SIGTERM');
    sendSignal(pid, 'SIGCONT');
  }
  if (await pollUntil(() => live.every(processGone), graceMs)) return;
  for (const pid of live) sendSignal(pid, 'SIGKILL');
  await pollUntil(() => live.every(processGone), 5_000);
}

/** True when `pid` still leads its own group, i.e. signalling -pid cannot hit a stranger's group. */
export function leadsGroup(pid: number): boolean {
  return readProcStat(pid)?.pgid === pid;
}

export function describeExit(exit: ProcessExit): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code ?? '?'}`;
}

/** The last few meaningful lines of a log, for error messages. */
export function logTail(file: string, lines = 5): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(-lines)
    .join(' | ')
    .slice(0, 1_000);
}
