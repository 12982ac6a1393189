import { DEFAULT_BLOCK_UNTIL_MS, type ToolDefinition } from '@lazyboy/agent';
import { BROWSER_TOOL, browserTool } from './browser-tool.js';
import { fileTools, LIST_FILES_TOOL, READ_FILE_TOOL, WRITE_FILE_TOOL } from './file-tools.js';
import { COMPUTER_ACT_TOOL, COMPUTER_OBSERVE_TOOL, nativeTools } from './native-tools.js';
import type { ScreenProvider } from './screen-provider.js';
import { COMMAND_OUTPUT_TOOL, SHELL_TOOL, shellTools } from './shell-tools.js';
import { WAIT_TOOL, waitTool } from './wait-tool.js';

export interface ComputerToolOptions {
  /** A shell command still running after this continues in the background. Default 30 s. */
  blockUntilMs?: number;
  /** Default deadline of a shell command. Default 10 min. */
  commandTimeoutMs?: number;
  /** How often a background command is checked. Default 2 s. */
  outputPollMs?: number;
}

/** Every tool that works on the agent's computer, by the name the model sees. */
export const COMPUTER_TOOL_NAMES: ReadonlySet<string> = new Set([
  BROWSER_TOOL,
  COMPUTER_OBSERVE_TOOL,
  COMPUTER_ACT_TOOL,
  SHELL_TOOL,
  COMMAND_OUTPUT_TOOL,
  LIST_FILES_TOOL,
  READ_FILE_TOOL,
  WRITE_FILE_TOOL,
  WAIT_TOOL,
]);

/** Whether a call of this tool boots/wakes the computer and takes the screen (false for control and human tools). */
export function toolNeedsComputer(name: string): boolean {
  return COMPUTER_TOOL_NAMES.has(name);
}

/**
 * The agent's computer tools for one run: each call goes to the computer's worker with the run's screen
 * fence. Make one set per run (the tools remember the latest observation and the run's background
 * commands); the screen is only acquired on the first call that needs it.
 */
export function computerTools(screen: ScreenProvider, options: ComputerToolOptions = {}): ToolDefinition[] {
  return [
    browserTool(screen),
    ...nativeTools(screen),
    ...shellTools(screen, {
      blockUntilMs: options.blockUntilMs ?? DEFAULT_BLOCK_UNTIL_MS,
      commandTimeoutMs: options.commandTimeoutMs ?? 600_000,
      outputPollMs: options.outputPollMs ?? 2_000,
    }),
    ...fileTools(screen),
    waitTool(screen),
  ];
}

// One import for the executor.
export { describeStep } from './describe-step.js';
export { ScreenLeaseLostError, type ScreenProvider } from './screen-provider.js';
export { LEASE_LOST_REASON, TAKEOVER_PROMPT } from './worker-call.js';
