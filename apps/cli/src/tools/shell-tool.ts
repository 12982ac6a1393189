import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { backgroundAfter, defineTool, shellArgumentsSchema, type ToolDefinition, type ToolOutcome } from '@lazyboy/agent';
import { z } from 'zod';

export interface ShellToolOptions {
  cwd: string;
  /** Where each command's output is written (one file per command). */
  logDir: string;
  /** Default deadline of a command (the model may ask for longer). */
  timeoutMs: number;
  /** A command still running after this continues in the background. */
  blockUntilMs: number;
}

const TAIL_BYTES = 8_000;

/**
 * shell: runs a command with bash in its own process group, its output streamed to a log file and
 * returned from there (the last few KB, with the file's path for the rest). A command past its deadline
 * is killed (the whole group); one past block_until_ms keeps running in the background, and
 * command_output returns what it has written since last seen.
 */
export function shellTools(options: ShellToolOptions): ToolDefinition[] {
  let counter = 0;
  /** Per command: its log and how much of it the model has already been shown. */
  const commands = new Map<number, { log: string; shown: number }>();
  const shell = defineTool({
    name: 'shell',
    kind: 'command',
    description:
      `Run a shell command (bash) in the working directory. It is killed after timeout_secs (default ${options.timeoutMs / 1000} s); ` +
      `if it is still running after block_until_ms (default ${options.blockUntilMs} ms) it continues in the background and you are ` +
      'told when it finishes. Returns the exit status and the end of the output (the full output is in the log file named).',
    schema: shellArgumentsSchema,
    execute: async ({ command, timeout_secs, block_until_ms }, ctx) => {
      const number = ++counter;
      const log = path.join(options.logDir, `command-${String(number).padStart(3, '0')}.log`);
      const entry = { log, shown: 0 };
      commands.set(number, entry);
      const work = runCommand(command, options.cwd, log, timeout_secs ? timeout_secs * 1000 : options.timeoutMs, ctx.signal).then(
        (outcome) => {
          entry.shown = sizeOf(log);
          return outcome;
        },
      );
      const outcome = await backgroundAfter(ctx, command, work, block_until_ms ?? options.blockUntilMs);
      // Only a command still running gets its number (for command_output): a finished one's result stays
      // exactly its output, so that repeating the same command is recognisable as a repeat.
      if (!entry.shown && outcome.state && Object.keys(outcome.state).some((k) => k.startsWith('job:'))) {
        return {
          ...outcome,
          content: `${String(outcome.content)} Its number is ${number}: command_output shows what it has written so far.`,
        };
      }
      return outcome;
    },
  });
  const output = defineTool({
    name: 'command_output',
    kind: 'read',
    description: 'The output a command (by its number) has written since you last saw it: for watching a background command.',
    schema: z.object({ command: z.number().int().min(1) }),
    execute: async ({ command }) => {
      const entry = commands.get(command);
      if (!entry) return { content: `no command ${command} in this session`, isError: true };
      const size = sizeOf(entry.log);
      const fresh = size > entry.shown ? readSlice(entry.log, entry.shown, size) : '';
      entry.shown = size;
      return { content: fresh ? fresh : '(no new output)', controlledWait: true };
    },
  });
  return [shell, output];
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function readSlice(file: string, from: number, to: number): string {
  const start = Math.max(from, to - TAIL_BYTES);
  const buffer = Buffer.alloc(to - start);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, start);
  } finally {
    closeSync(fd);
  }
  const skipped = start > from ? `[… ${start - from} bytes skipped …]\n` : '';
  return skipped + buffer.toString('utf8');
}

function runCommand(command: string, cwd: string, log: string, timeoutMs: number, signal: AbortSignal): Promise<ToolOutcome> {
  return new Promise((resolve) => {
    const fd = openSync(log, 'a');
    const child = spawn('bash', ['-c', command], { cwd, detached: true, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    let ended: 'timeout' | 'cancelled' | undefined;
    const killGroup = (why: 'timeout' | 'cancelled') => {
      ended = why;
      try {
        process.kill(-child.pid!, 'SIGTERM');
        setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            // already gone
          }
        }, 2_000).unref();
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => killGroup('timeout'), timeoutMs);
    const onAbort = () => killGroup('cancelled');
    signal.addEventListener('abort', onAbort);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ content: `could not start bash: ${error.message}`, isError: true });
    });
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      const status =
        ended === 'timeout'
          ? `killed after ${Math.round(timeoutMs / 1000)} s (deadline)`
          : ended === 'cancelled'
            ? 'stopped (cancelled)'
            : code !== null
              ? `exit ${code}`
              : `killed by ${sig}`;
      resolve({ content: `${status}\n${tailOf(log)}`, isError: code !== 0, state: { lastCommandLog: log } });
    });
  });
}

function tailOf(file: string): string {
  const size = statSync(file).size;
  if (size === 0) return '(no output)';
  const text = readFileSync(file, 'utf8');
  if (size <= TAIL_BYTES) return text;
  return `[… ${size - TAIL_BYTES} bytes earlier in ${file} …]\n${text.slice(-TAIL_BYTES)}`;
}
