import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { refusalOutcome, type CallContext, type ShellRunInput, type ShellTransport, type TransportAnswer } from '@lazyboy/agent';
import type { ShellOutputResponse, ShellRunResponse } from '@lazyboy/contracts';
import { logSize, logTailText, readLogSlice } from '@lazyboy/desktop';

/** As much output as a result or an output read carries (the worker's shell keeps the same). */
const TAIL_BYTES = 8_000;
/** After SIGTERM, how long a command's group has before SIGKILL. */
const KILL_GRACE_MS = 2_000;

interface Command {
  log: string;
  startedAt: number;
  /** How much of the log has been handed out by `output`. */
  read: number;
  ended?: { exitCode: number | null; signal: string | null; timedOut: boolean };
  exited: Promise<void>;
}

export interface LocalShellOptions {
  cwd: string;
  /** Where each command's output is written (one file per command). */
  logDir: string;
}

/**
 * The CLI's transport of the shared shell tools: bash in its own process group in the working directory,
 * its output streamed to a log file per command and read back from there. A command past its deadline is
 * killed with its whole group, as is one still running when the turn is cancelled.
 */
export class LocalShell implements ShellTransport {
  private readonly commands = new Map<number, Command>();
  private counter = 0;

  constructor(private readonly options: LocalShellOptions) {}

  async run(input: ShellRunInput, ctx: CallContext): Promise<TransportAnswer<ShellRunResponse>> {
    const commandId = ++this.counter;
    const log = path.join(this.options.logDir, `command-${String(commandId).padStart(3, '0')}.log`);
    const command = this.start(input, log, ctx.signal);
    this.commands.set(commandId, command);
    let timer: NodeJS.Timeout | undefined;
    const blocked = new Promise<void>((resolve) => (timer = setTimeout(resolve, input.blockUntilMs)));
    await Promise.race([command.exited, blocked]);
    clearTimeout(timer);
    if (!command.ended) return { ok: true, value: { done: false, commandId } };
    const bytes = logSize(log);
    command.read = bytes;
    return {
      ok: true,
      value: {
        done: true,
        commandId,
        ...command.ended,
        outputTail: logTailText(log, TAIL_BYTES),
        bytes,
        durationMs: Date.now() - command.startedAt,
      },
    };
  }

  async output(commandId: number): Promise<TransportAnswer<ShellOutputResponse>> {
    const command = this.commands.get(commandId);
    if (!command) return { ok: false, outcome: refusalOutcome('UNKNOWN_COMMAND', `no command ${commandId} in this session`) };
    const bytes = logSize(command.log);
    const slice = readLogSlice(command.log, command.read, bytes, TAIL_BYTES);
    command.read = bytes;
    return {
      ok: true,
      value: {
        commandId,
        text: slice.text,
        skippedBytes: slice.skipped,
        bytes,
        running: !command.ended,
        ...(command.ended ? { exitCode: command.ended.exitCode, timedOut: command.ended.timedOut } : {}),
      },
    };
  }

  private start(input: ShellRunInput, log: string, signal: AbortSignal): Command {
    const fd = openSync(log, 'a');
    const child = spawn('bash', ['-c', input.command], { cwd: this.options.cwd, detached: true, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    let timedOut = false;
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
        setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            // already gone
          }
        }, KILL_GRACE_MS).unref();
      } catch {
        // already gone
      }
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, input.timeoutMs);
    signal.addEventListener('abort', killGroup);
    const command: Command = { log, startedAt: Date.now(), read: 0, exited: Promise.resolve() };
    command.exited = new Promise<void>((resolve) => {
      const end = (exitCode: number | null, sig: string | null) => {
        clearTimeout(deadline);
        signal.removeEventListener('abort', killGroup);
        command.ended ??= { exitCode, signal: sig, timedOut };
        resolve();
      };
      child.once('error', (error) => {
        // bash itself could not start: its log says why, and it ends as a shell that found no command would.
        try {
          appendFileSync(log, `could not start bash: ${error.message}\n`);
        } catch {
          // the log folder is gone too
        }
        end(127, null);
      });
      child.once('exit', (code, sig) => end(code, sig));
    });
    return command;
  }
}
