import { computerToolset, type ComputerPlace, type ComputerToolset } from '@lazyboy/agent';
import type { LocalBrowser } from './local-browser.js';
import { LocalFiles } from './local-files.js';
import { LocalShell } from './local-shell.js';

export interface CliToolOptions {
  cwd: string;
  /** Where each shell command's output is written. */
  logDir: string;
  /** Default deadline of a shell command (the model may ask for longer). */
  timeoutMs: number;
  /** A shell command still running after this continues in the background. */
  blockUntilMs: number;
  browser: LocalBrowser;
}

/** The CLI's working directory, for the shared tools' descriptions. */
export const CLI_PLACE: ComputerPlace = { home: 'the working directory' };

/** How often a background command's log is read while it runs (a local file: cheap). */
const OUTPUT_POLL_MS = 250;

/**
 * The CLI's browser, shell and file tools: the shared definitions (libs/agent tools/computer) over
 * in-process transports. The service builds the same tools over its computer's worker.
 */
export function cliTools(options: CliToolOptions): ComputerToolset {
  return computerToolset(
    {
      browser: options.browser,
      shell: new LocalShell({ cwd: options.cwd, logDir: options.logDir }),
      files: new LocalFiles(options.cwd),
    },
    CLI_PLACE,
    { blockUntilMs: options.blockUntilMs, commandTimeoutMs: options.timeoutMs, outputPollMs: OUTPUT_POLL_MS },
  );
}
