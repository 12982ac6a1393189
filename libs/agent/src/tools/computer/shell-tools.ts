import { setTimeout as sleep } from 'node:timers/promises';
import type { ShellOutputResponse, ShellRunResponse } from '@lazyboy/contracts';
import { z } from 'zod';
import { backgroundAfter } from '../background-after.js';
import { shellArgumentsSchema } from '../shell-arguments.js';
import { defineTool, type ToolContext, type ToolDefinition, type ToolOutcome } from '../tool.js';
import { shortCommand } from './short-command.js';
import type { ComputerPlace, ShellTransport } from './transport.js';

export const SHELL_TOOL = 'shell';
export const COMMAND_OUTPUT_TOOL = 'command_output';

export interface ShellToolOptions {
  /** A command still running after this continues in the background. */
  blockUntilMs: number;
  /** Default deadline of a command (the model may ask for longer, up to 24 h). */
  commandTimeoutMs: number;
  /** How often a background command's output is fetched while it runs. */
  outputPollMs: number;
}

/** The upper bound of one run call's wait (the worker API's): longer commands go to the background. */
export const MAX_BLOCK_MS = 600_000;
/** How much not-yet-shown output is kept for the model per command. */
const UNSEEN_CHARS = 8_000;
/** Consecutive failed polls of a background command before the job reports failure. */
const MAX_POLL_FAILURES = 5;

/** Output a command wrote that the model has not been shown yet (its end, when there is a lot). */
class UnseenOutput {
  private text = '';
  private skipped = 0;

  add(response: ShellOutputResponse): void {
    this.skipped += response.skippedBytes;
    this.text += response.text;
    if (this.text.length > UNSEEN_CHARS) {
      this.skipped += Buffer.byteLength(this.text.slice(0, this.text.length - UNSEEN_CHARS));
      this.text = this.text.slice(-UNSEEN_CHARS);
    }
  }

  take(): string {
    const skipped = this.skipped > 0 ? `[… ${this.skipped} bytes not shown …]\n` : '';
    const text = skipped + this.text;
    this.text = '';
    this.skipped = 0;
    return text;
  }
}

const commandOutputSchema = z.object({ command: z.number().int().min(1) });

/**
 * shell / command_output: bash with a deadline per command; a command past block_until_ms keeps running
 * as a background job the model hears about when it ends, and its number lets command_output show what
 * it has written meanwhile. The same tools in the CLI (a local process group) and the service (the
 * computer's sandbox): only the transport differs.
 */
export function shellTools(transport: ShellTransport, place: ComputerPlace, options: ShellToolOptions): ToolDefinition[] {
  const unseen = new Map<number, UnseenOutput>();

  /** The background job of a command past its block_until_ms: ends when the command does. */
  const watch = async (commandId: number, output: UnseenOutput, ctx: ToolContext): Promise<ToolOutcome> => {
    let failures = 0;
    for (;;) {
      try {
        await sleep(options.outputPollMs, undefined, { signal: ctx.signal });
        const answer = await transport.output(commandId, ctx);
        if (!answer.ok) {
          // A lost lease or a vanished command will not come back; a computer that did not answer may.
          if (answer.outcome.directive || ++failures >= MAX_POLL_FAILURES) return answer.outcome;
          continue;
        }
        failures = 0;
        output.add(answer.value);
        if (!answer.value.running) {
          // The job's result is told as "<job> finished:", so it starts with the status; the output is what
          // the model has not been shown yet (command_output may have shown the rest).
          const status = endStatus(answer.value.exitCode ?? null, null, answer.value.timedOut === true);
          return { content: `${status}\n${output.take() || '(no new output)'}`, isError: failed(answer.value) };
        }
      } catch (error) {
        if (ctx.signal.aborted) return { content: 'stopped watching: the run was cancelled', isError: true };
        return { content: `watching the command failed: ${(error as Error).message}`, isError: true };
      }
    }
  };

  const shell = defineTool({
    name: SHELL_TOOL,
    kind: 'command',
    description:
      `Run a shell command (bash) in ${place.home}${place.shellNote ? ` ${place.shellNote}` : ''}. ` +
      `It is killed after timeout_secs (default ${Math.round(options.commandTimeoutMs / 1000)} s); if it is still running ` +
      `after block_until_ms (default ${options.blockUntilMs} ms) it continues in the background and you are told when it ` +
      'finishes. Returns the exit status and the end of the output.',
    schema: shellArgumentsSchema,
    execute: async ({ command, timeout_secs, block_until_ms }, ctx) => {
      const blockUntilMs = Math.min(block_until_ms ?? options.blockUntilMs, MAX_BLOCK_MS);
      const timeoutMs = timeout_secs === undefined ? options.commandTimeoutMs : timeout_secs * 1000;
      const started = transport.run({ command, timeoutMs, blockUntilMs }, ctx);
      const work = started.then((answer) => {
        if (!answer.ok) return answer.outcome;
        const run = answer.value;
        if (run.done) return finishedOutcome(run, timeoutMs);
        const output = new UnseenOutput();
        unseen.set(run.commandId, output);
        return watch(run.commandId, output, ctx);
      });
      // The transport waits block_until_ms too: a command past it is backgrounded.
      const outcome = await backgroundAfter(ctx, shortCommand(command), work, blockUntilMs);
      if (!outcome.state || !Object.keys(outcome.state).some((key) => key.startsWith('job:'))) return outcome;
      // The transport answers "still running" at about the same moment: its number is for command_output.
      // Only a command still running gets its number: a finished one's result stays exactly its output,
      // so that repeating the same command is recognisable as a repeat.
      const answer = await started.catch(() => undefined);
      if (!answer?.ok) return outcome;
      return {
        ...outcome,
        content: `${String(outcome.content)} Its number is ${answer.value.commandId}: command_output shows what it has written so far.`,
      };
    },
  });

  const commandOutput = defineTool({
    name: COMMAND_OUTPUT_TOOL,
    kind: 'read',
    description: 'The output a command (by its number) has written since you last saw it: for watching a background command.',
    schema: commandOutputSchema,
    execute: async ({ command }, ctx) => {
      const answer = await transport.output(command, ctx);
      if (!answer.ok) return answer.outcome;
      const output = unseen.get(command) ?? new UnseenOutput();
      output.add(answer.value);
      const fresh = output.take();
      const status = answer.value.running ? '[still running]' : `[${outputEnd(answer.value)}]`;
      return { content: `${fresh || '(no new output)'}\n${status}`, controlledWait: true };
    },
  });

  return [shell, commandOutput];
}

function finishedOutcome(run: Extract<ShellRunResponse, { done: true }>, timeoutMs: number): ToolOutcome {
  const status = endStatus(run.exitCode, run.signal, run.timedOut, timeoutMs);
  const shownBytes = Buffer.byteLength(run.outputTail);
  // A transport whose tail already says what was left out (and where the rest is) is not told twice.
  const noted = run.outputTail.startsWith('[… ');
  const earlier = run.bytes > shownBytes && !noted ? `[… ${run.bytes - shownBytes} bytes earlier not shown …]\n` : '';
  const output = run.bytes === 0 ? '(no output)' : earlier + run.outputTail;
  return { content: `${status}\n${output}`, isError: run.exitCode !== 0 };
}

/** How a watched command ended (the transport adds exitCode and timedOut once it has). */
function outputEnd(output: ShellOutputResponse): string {
  return `finished: ${endStatus(output.exitCode ?? null, null, output.timedOut === true)}`;
}

function failed(output: ShellOutputResponse): boolean {
  return output.timedOut === true || output.exitCode !== 0;
}

function endStatus(exitCode: number | null, signal: string | null, timedOut: boolean, timeoutMs?: number): string {
  if (timedOut) return timeoutMs ? `killed after ${Math.round(timeoutMs / 1000)} s (deadline)` : 'killed (deadline)';
  if (exitCode !== null) return `exit ${exitCode}`;
  return signal ? `killed by ${signal}` : 'ended';
}
