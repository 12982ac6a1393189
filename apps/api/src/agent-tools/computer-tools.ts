import { DEFAULT_BLOCK_UNTIL_MS, type ToolDefinition } from '@lazyboy/agent';
import { browserTool } from './browser-tool.js';
import { fileTools } from './file-tools.js';
import { nativeTools } from './native-tools.js';
import type { ScreenProvider } from './screen-provider.js';
import { shellTools } from './shell-tools.js';
import { waitTool } from './wait-tool.js';

export interface ComputerToolOptions {
  /** A shell command still running after this continues in the background. Default 30 s. */
  blockUntilMs?: number;
  /** Default deadline of a shell command. Default 10 min. */
  commandTimeoutMs?: number;
  /** How often a background command is checked. Default 2 s. */
  outputPollMs?: number;
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
