import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { backgroundAfter, defineTool, type ToolDefinition, type ToolOutcome } from '@lazyboy/agent';
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
 * is killed (the whole group); one past block_until_ms keeps running in the background.
 */
export function shellTool(options: ShellToolOptions): ToolDefinition {
  let counter = 0;
  return defineTool({
    name: 'shell',
    kind: 'command',
    description:
      `Run a shell command (bash) in the working directory. It is killed after timeout_secs (default ${options.timeoutMs / 1000} s); ` +
      `if it is still running after block_until_ms (default ${options.blockUntilMs} ms) it continues in the background and you are ` +
      'told when it finishes. Returns the exit status and the end of the output (the full output is in the log file named).',
    schema: z.object({
      command: z.string().min(1),
      timeout_secs: z
        .number()
        .int()
        .min(1)
        .max(24 * 3600)
        .optional(),
      block_until_ms: z.number().int().min(0).optional(),
    }),
    execute: async ({ command, timeout_secs, block_until_ms }, ctx) => {
      const log = path.join(options.logDir, `command-${String(++counter).padStart(3, '0')}.log`);
      const work = runCommand(command, options.cwd, log, timeout_secs ? timeout_secs * 1000 : options.timeoutMs, ctx.signal);
      return backgroundAfter(ctx, command, work, block_until_ms ?? options.blockUntilMs);
    },
  });
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
