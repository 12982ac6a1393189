import { spawn, type ChildProcess } from 'node:child_process';
import { EGRESS_PROXY_URL } from '@lazyboy/contracts';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { HOME_MARKER, RUNTIME_MARKER } from '../display/desktop-env.js';
import { busSocketPath } from '../display/dbus-session.js';
import type { DesktopUser } from '../display/desktop-user.js';
import { xSocketFile } from '../display/display-numbers.js';
import { PRIVATE_HOME_DIR } from '../display/chromium.js';
import { proxyEnv } from '../display/desktop-env.js';
import { launchSpec, type RunAs } from '../process/run-as.js';
import { signalGroup } from '../process/signals.js';
import { logSize, logTailText, readLogSlice } from './command-log.js';
import { PathOutsideHomeError, SandboxUnavailableError, UnknownCommandError } from './errors.js';
import { bwrapArguments, DEFAULT_HIDDEN_DIRS, isInside } from './sandbox-args.js';
import { sandboxProcFor } from './sandbox-proc.js';

const COMMAND_LOG = /^command-\d+\.log$/;
const commandLogName = (id: number): string => `command-${String(id).padStart(4, '0')}.log`;

export interface SandboxedShellOptions {
  /** The computer's user (`ScreenManager.user`): commands run as it when it is a dedicated one. */
  user: DesktopUser;
  /** The computer's home, the only writable place the sandbox has besides its private /tmp. */
  homeDir: string;
  /**
   * One log per command. Must belong to the worker and lie outside the home: the sandbox writes its output
   * through the inherited descriptor only, so it can neither rewrite earlier logs nor plant files the worker
   * later trusts. Created 0700. Logs in it from an earlier shell (a worker killed before it cleaned up) are
   * removed at this shell's first command: its numbers start at 1 again, and command 1's output is its own.
   */
  logDir: string;
  /**
   * The display to show GUI programs on, asked for at each command (the screen may start or stop between
   * commands): typically `() => manager.clientEnv(0)`, returning undefined (or throwing) when no screen runs.
   */
  displayEnv?: () => Record<string, string> | undefined;
  /**
   * Who and where the slot's programs run (`() => manager.clientRunAs(slot)`): with a network island the
   * command starts inside it and reaches the internet through the egress proxy; without one (no screen, or
   * a worker that is not root) it has no network at all.
   */
  displayRunAs?: () => RunAs | undefined;
  /** Hidden in addition to /home, /root, /run and the home's parent (e.g. the worker's data directory). */
  hiddenDirs?: readonly string[];
  /** Default deadline of a command. Default 30 s. */
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL when a command is stopped. Default 2 s. */
  killGraceMs?: number;
  /** How much of the output a result carries (the rest is in the log). Default 8 KB. */
  tailBytes?: number;
  /** Finished commands remembered for `newOutput`. Default 200. */
  keepCommands?: number;
  bwrapPath?: string;
  /**
   * What keeps a command inside the computer. `bubblewrap` (the default): a sandbox of its own that sees only
   * the home and a private /tmp. `container`: the worker runs in a container (a cluster's pod) that holds this
   * computer alone, where no user namespace can be made; the container is then the boundary and the command
   * runs directly, as the worker's user, in its own process group, with a clean environment.
   */
  boundary?: 'bubblewrap' | 'container';
}

export interface ShellRunOptions {
  /** Deadline; the whole sandbox (every process the command started) is killed when it passes. */
  timeoutMs?: number;
  /** Aborting kills the command like the deadline does. */
  signal?: AbortSignal;
  /** Where the command starts: relative to the home, or an absolute path inside it. Default the home. */
  cwd?: string;
}

export interface ShellResult {
  commandId: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The last `tailBytes` of the output (stdout and stderr interleaved), noting the log when cut. */
  outputTail: string;
  logFile: string;
  /** Size of the whole output. */
  bytes: number;
  durationMs: number;
}

export interface ShellCommand {
  id: number;
  logFile: string;
  /** Rejects with SandboxUnavailableError when the sandbox could not be built; otherwise always resolves. */
  result: Promise<ShellResult>;
}

export interface ShellOutput {
  commandId: number;
  /** What the command wrote since the last call (at most `maxBytes`, the newest). */
  text: string;
  skippedBytes: number;
  /** Size of the whole output so far. */
  bytes: number;
  running: boolean;
  /** Set once the command has ended (null when a signal ended it). */
  exitCode?: number | null;
  /** Set once the command has ended: whether its deadline killed it. */
  timedOut?: boolean;
}

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const MAX_TIMEOUT_MS = 24 * 3600 * 1000;

interface CommandEntry {
  logFile: string;
  shown: number;
  readonly running: boolean;
  /** How it ended, once it has (unset while running or when the sandbox could not be built). */
  readonly ended: { exitCode: number | null; timedOut: boolean } | undefined;
  kill: (why: 'timeout' | 'abort' | 'stop') => void;
  result: Promise<ShellResult>;
}

/**
 * The agent's shell on its computer: `bash -c` as the computer's user inside bubblewrap, with a read-only
 * system, its home read-write, private /tmp, /dev and /proc, its own (empty) network, and the display's X
 * socket and cookie. Behaves like the CLI's shell for the model: a log per command, a deadline, and
 * incremental output while a command runs.
 */
export class SandboxedShell {
  readonly homeDir: string;
  readonly logDir: string;
  private readonly options: SandboxedShellOptions;
  private readonly commands = new Map<number, CommandEntry>();
  private counter = 0;
  private logDirReady = false;

  constructor(options: SandboxedShellOptions) {
    this.options = options;
    this.homeDir = path.resolve(options.homeDir);
    this.logDir = path.resolve(options.logDir);
    if (isInside(this.logDir, this.homeDir)) {
      throw new RangeError(`logDir ${this.logDir} must lie outside the home ${this.homeDir}`);
    }
  }

  /** Runs `true` in the sandbox: resolves when commands can run here, else SandboxUnavailableError. */
  async probe(): Promise<void> {
    const result = await this.start('true', { timeoutMs: 15_000 }).result;
    if (result.exitCode !== 0) {
      throw new SandboxUnavailableError(`the sandbox probe failed (${result.exitCode ?? result.signal}): ${result.outputTail}`);
    }
  }

  async run(command: string, options: ShellRunOptions = {}): Promise<ShellResult> {
    return this.start(command, options).result;
  }

  /** Starts a command and returns at once; its id serves `newOutput` while it runs. */
  start(command: string, options: ShellRunOptions = {}): ShellCommand {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
      throw new RangeError(`timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}, got ${timeoutMs}`);
    }
    const cwd = this.resolveCwd(options.cwd);
    this.prepareLogDir();
    const id = ++this.counter;
    const logFile = path.join(this.logDir, commandLogName(id));
    const entry = this.launch(id, command, cwd, logFile, timeoutMs, options.signal);
    this.commands.set(id, entry);
    this.forgetOld();
    return { id, logFile, result: entry.result };
  }

  /** Output written since the last call for this command (the first call: since it started). */
  newOutput(commandId: number, maxBytes = this.options.tailBytes ?? 8_000): ShellOutput {
    const entry = this.commands.get(commandId);
    if (!entry) throw new UnknownCommandError(`no command ${commandId} in this shell`);
    const size = logSize(entry.logFile);
    // A command may truncate its own log (it holds the descriptor): start again from its beginning.
    const from = size < entry.shown ? 0 : entry.shown;
    const slice = readLogSlice(entry.logFile, from, size, maxBytes);
    entry.shown = size;
    return { commandId, text: slice.text, skippedBytes: slice.skipped, bytes: size, running: entry.running, ...entry.ended };
  }

  isRunning(commandId: number): boolean {
    return this.commands.get(commandId)?.running ?? false;
  }

  /** Kills every running command and waits for them (the computer is stopping). */
  async stopAll(): Promise<void> {
    const running = [...this.commands.values()].filter((entry) => entry.running);
    for (const entry of running) entry.kill('stop');
    await Promise.all(running.map((entry) => entry.result.catch(() => undefined)));
  }

  private launch(
    id: number,
    command: string,
    cwd: string,
    logFile: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): CommandEntry {
    const { user } = this.options;
    const display = this.currentDisplay();
    const contained = this.options.boundary === 'container';
    const island = display && !contained ? this.currentIsland() : undefined;
    const started = Date.now();
    // 'w': a log of this name is never another command of this shell's (ids only grow).
    const log = openSync(logFile, 'w', 0o600);
    let child: ChildProcess;
    try {
      if (contained) {
        child = spawn('/bin/bash', ['-c', command], {
          cwd,
          env: this.sandboxEnv(display?.env),
          detached: true,
          stdio: ['ignore', log, log],
        });
      } else {
        const args = bwrapArguments(
          {
            homeDir: this.homeDir,
            cwd,
            hiddenDirs: [
              ...DEFAULT_HIDDEN_DIRS,
              path.dirname(this.homeDir),
              // The computer's runtime directory (other screens' cookies, the desktop's logs); the cookie is bound back.
              ...(display?.env[RUNTIME_MARKER] ? [display.env[RUNTIME_MARKER]] : []),
              ...(this.options.hiddenDirs ?? []),
            ].filter((dir) => existsSync(dir)),
            xSocket: display?.xSocket,
            xauthority: display?.xauthority,
            a11ySocket: display?.a11ySocket,
            privateDirs: [PRIVATE_HOME_DIR],
            shareNetwork: island !== undefined,
            proc: sandboxProcFor(user.dedicated ? user : undefined),
          },
          command,
        );
        // Two more leading options: bwrap reports on fd 3 when the command really started (and how it ended),
        // which tells a sandbox that could not be built apart from a command that failed.
        args.unshift('--json-status-fd', '3');
        const launch = launchSpec(
          this.options.bwrapPath ?? 'bwrap',
          args,
          island ?? (user.dedicated ? { uid: user.uid, gid: user.gid } : undefined),
        );
        child = spawn(launch.command, launch.args, {
          cwd: '/',
          env: { ...this.sandboxEnv(display?.env), ...(island ? proxyEnv(EGRESS_PROXY_URL) : {}) },
          detached: true,
          stdio: ['ignore', log, log, 'pipe'],
          uid: launch.uid,
          gid: launch.gid,
        });
      }
    } finally {
      closeSync(log);
    }
    let status = '';
    const statusPipe = child.stdio[3] as Readable | null;
    statusPipe?.setEncoding('utf8').on('data', (chunk: string) => (status += chunk));
    const statusClosed = new Promise<void>((resolve) => {
      if (!statusPipe) resolve();
      statusPipe?.once('close', resolve);
    });

    let ended: 'timeout' | 'abort' | 'stop' | undefined;
    let running = true;
    let outcome: CommandEntry['ended'];
    let killTimer: NodeJS.Timeout | undefined;
    const kill = (why: 'timeout' | 'abort' | 'stop'): void => {
      const pid = child.pid;
      if (!running || ended || pid === undefined) return;
      ended = why;
      // The outer bwrap leads the group; when it dies, --die-with-parent kills the sandbox's init and with
      // it the whole pid namespace, so nothing the command forked survives. In a container bash leads it
      // (a process that left the group lives on until the computer stops: the container ends it then).
      signalGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), this.options.killGraceMs ?? 2_000);
    };
    const deadline = setTimeout(() => kill('timeout'), timeoutMs);
    const onAbort = (): void => kill('abort');
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });

    const result = new Promise<ShellResult>((resolve, reject) => {
      child.once('error', (error) => {
        clearTimeout(deadline);
        running = false;
        signal?.removeEventListener('abort', onAbort);
        reject(new SandboxUnavailableError(`cannot start ${contained ? 'bash' : 'bubblewrap'}: ${error.message}`));
      });
      child.once('exit', (code, exitSignal) => {
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        void (async () => {
          // The status lines may still sit in the pipe when the exit is reported.
          await Promise.race([statusClosed, new Promise((r) => setTimeout(r, 500))]);
          statusPipe?.destroy();
          if (killTimer) clearTimeout(killTimer);
          running = false;
          if (!contained && !status.includes('"child-pid"') && ended === undefined) {
            reject(new SandboxUnavailableError(`bubblewrap could not build the sandbox: ${logTailText(logFile, 2_000).trim()}`));
            return;
          }
          outcome = { exitCode: code, timedOut: ended === 'timeout' };
          resolve({
            commandId: id,
            exitCode: code,
            signal: exitSignal,
            timedOut: ended === 'timeout',
            aborted: ended === 'abort',
            outputTail: logTailText(logFile, this.options.tailBytes ?? 8_000),
            logFile,
            bytes: logSize(logFile),
            durationMs: Date.now() - started,
          });
        })();
      });
    });
    result.catch(() => undefined);
    return {
      logFile,
      shown: 0,
      get running() {
        return running;
      },
      get ended() {
        return outcome;
      },
      kill,
      result,
    };
  }

  /** Built from scratch: the worker's environment holds its secrets. */
  private sandboxEnv(displayEnv: Record<string, string> | undefined): Record<string, string> {
    const { user } = this.options;
    const env: Record<string, string> = {
      PATH: SYSTEM_PATH,
      HOME: this.homeDir,
      USER: user.name,
      LOGNAME: user.name,
      SHELL: '/bin/bash',
      LANG: process.env['LANG'] || 'C.UTF-8',
      TERM: 'dumb',
      TMPDIR: '/tmp',
    };
    // GUI programs join the display's accessibility bus (its socket is bound in) so that native control
    // can number their controls; without one, GTK would wait for a bus it cannot reach.
    const a11y = displayEnv?.['AT_SPI_BUS_ADDRESS'];
    if (a11y && busSocketPath(a11y) && existsSync(busSocketPath(a11y)!)) env['AT_SPI_BUS_ADDRESS'] = a11y;
    else env['NO_AT_BRIDGE'] = '1';
    const tz = process.env['TZ'];
    if (tz) env['TZ'] = tz;
    if (displayEnv) {
      for (const key of ['DISPLAY', 'XAUTHORITY'] as const) {
        const value = displayEnv[key];
        if (value) env[key] = value;
      }
      // With the computer's marker, stopping the computer (ScreenManager.stop) also ends running commands.
      // Not the slot's: restarting one screen should not kill the agent's build.
      const runtime = displayEnv[RUNTIME_MARKER];
      if (runtime) env[RUNTIME_MARKER] = runtime;
    }
    // The home's marker always: a command outlives neither its computer's stop nor `lazyboy down`.
    env[HOME_MARKER] = this.homeDir;
    return env;
  }

  /** The slot's island, when its screen runs in one (asked at each command: the screen may have restarted). */
  private currentIsland(): (RunAs & { netns: string }) | undefined {
    let runAs: RunAs | undefined;
    try {
      runAs = this.options.displayRunAs?.();
    } catch {
      return undefined;
    }
    return runAs?.netns ? { ...runAs, netns: runAs.netns } : undefined;
  }

  private currentDisplay():
    { env: Record<string, string>; xSocket?: string; xauthority?: string; a11ySocket?: string } | undefined {
    let env: Record<string, string> | undefined;
    try {
      env = this.options.displayEnv?.();
    } catch {
      // No screen is running: commands run without a display.
      return undefined;
    }
    if (!env) return undefined;
    const number = /^:(\d+)(?:\.\d+)?$/.exec(env['DISPLAY'] ?? '')?.[1];
    const xSocket = number === undefined ? undefined : xSocketFile(Number(number));
    const xauthority = env['XAUTHORITY'];
    const a11ySocket = busSocketPath(env['AT_SPI_BUS_ADDRESS']);
    return {
      env,
      ...(xSocket && existsSync(xSocket) ? { xSocket } : {}),
      ...(xauthority && existsSync(xauthority) ? { xauthority } : {}),
      ...(a11ySocket && existsSync(a11ySocket) ? { a11ySocket } : {}),
    };
  }

  private resolveCwd(cwd: string | undefined): string {
    const resolved = path.resolve(this.homeDir, cwd ?? '.');
    if (!isInside(resolved, this.homeDir)) throw new PathOutsideHomeError(`cwd ${cwd} is outside the home ${this.homeDir}`);
    return resolved;
  }

  private prepareLogDir(): void {
    mkdirSync(this.logDir, { recursive: true, mode: 0o700 });
    chmodSync(this.logDir, 0o700);
    if (this.logDirReady) return;
    for (const name of readdirSync(this.logDir))
      if (COMMAND_LOG.test(name)) rmSync(path.join(this.logDir, name), { force: true });
    this.logDirReady = true;
  }

  private forgetOld(): void {
    const keep = this.options.keepCommands ?? 200;
    for (const [id, entry] of this.commands) {
      if (this.commands.size <= keep) return;
      if (!entry.running) this.commands.delete(id);
    }
  }
}
