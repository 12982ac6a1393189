import {
  computerToolset,
  DEFAULT_BLOCK_UNTIL_MS,
  redactingShellTransport,
  type ComputerPlace,
  type SecretRedactor,
  type ToolDefinition,
} from '@lazyboy/agent';
import { nativeTools } from './native-tools.js';
import type { ScreenProvider } from './screen-provider.js';
import { waitTool } from './wait-tool.js';
import { workerBrowserTransport, workerFileTransport, workerShellTransport } from './worker-transports.js';

export interface ComputerToolOptions {
  /** A shell command still running after this continues in the background. Default 30 s. */
  blockUntilMs?: number;
  /** Default deadline of a shell command. Default 10 min. */
  commandTimeoutMs?: number;
  /** How often a background command is checked. Default 2 s. */
  outputPollMs?: number;
  /** Hides saved secrets in commands' output as it streams (a secret split between two reads included). */
  redactor?: SecretRedactor;
}

/** Where an agent's shell and files are, for the shared tools' descriptions. */
export const COMPUTER_PLACE: ComputerPlace = {
  home: 'your home folder on your computer',
  shellNote: '(the screen is its display, so GUI programs show there)',
};

/**
 * The agent's computer tools for one run: the shared browser, shell and file tools (libs/agent) over
 * the worker, plus the tools only a computer with a screen has: computer_observe / computer_act (the
 * desktop outside the browser, through AT-SPI) and wait (for the screen to change). Each call goes to the
 * computer's worker with the run's screen fence. Make one set per run (the tools remember the latest
 * observation and the run's background commands); the screen is only acquired on the first call that
 * needs it.
 */
export function computerTools(screen: ScreenProvider, options: ComputerToolOptions = {}): ToolDefinition[] {
  const shared = computerToolset(
    {
      browser: workerBrowserTransport(screen),
      shell: options.redactor
        ? redactingShellTransport(workerShellTransport(screen), options.redactor)
        : workerShellTransport(screen),
      files: workerFileTransport(screen),
    },
    COMPUTER_PLACE,
    {
      blockUntilMs: options.blockUntilMs ?? DEFAULT_BLOCK_UNTIL_MS,
      commandTimeoutMs: options.commandTimeoutMs ?? 600_000,
      outputPollMs: options.outputPollMs ?? 2_000,
    },
  );
  return [...shared.tools, ...nativeTools(screen), waitTool(screen)];
}
