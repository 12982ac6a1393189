import type { ToolDefinition } from '../tool.js';
import { BROWSER_TOOL, browserTool, type BrowserTool } from './browser-tool.js';
import { fileTools, LIST_FILES_TOOL, READ_FILE_TOOL, WRITE_FILE_TOOL } from './file-tools.js';
import { COMMAND_OUTPUT_TOOL, SHELL_TOOL, shellTools, type ShellToolOptions } from './shell-tools.js';
import type { BrowserTransport, ComputerPlace, FileTransport, ShellTransport } from './transport.js';

export interface ComputerTransports {
  browser: BrowserTransport;
  shell: ShellTransport;
  files: FileTransport;
}

/**
 * The tools both the CLI and the service offer, by name. A tool added to `computerToolset` must be added
 * here: the parity test checks that both tool sets contain every one of them.
 */
export const SHARED_COMPUTER_TOOLS = [
  BROWSER_TOOL,
  SHELL_TOOL,
  COMMAND_OUTPUT_TOOL,
  READ_FILE_TOOL,
  WRITE_FILE_TOOL,
  LIST_FILES_TOOL,
] as const;

export interface ComputerToolset {
  tools: ToolDefinition[];
  /** The browser tool's handle (its own observation path, for what follows a hand-off). */
  browser: BrowserTool;
}

/**
 * The browser, shell and file tools over one set of transports: defined once, carried out in-process
 * (the CLI) or by the computer's worker (the service). Make one set per run or session: the tools
 * remember the latest observation and the background commands.
 */
export function computerToolset(
  transports: ComputerTransports,
  place: ComputerPlace,
  options: ShellToolOptions,
): ComputerToolset {
  const browser = browserTool(transports.browser);
  return {
    tools: [browser.tool, ...shellTools(transports.shell, place, options), ...fileTools(transports.files, place)],
    browser,
  };
}

export {
  BROWSER_TOOL,
  BROWSER_DESCRIPTION,
  browserArgumentsSchema,
  renderBrowserResult,
  type BrowserTool,
} from './browser-tool.js';
export { COMMAND_OUTPUT_TOOL, SHELL_TOOL, MAX_BLOCK_MS, type ShellToolOptions } from './shell-tools.js';
export { LIST_FILES_TOOL, READ_FILE_TOOL, WRITE_FILE_TOOL, READ_PAGE_BYTES } from './file-tools.js';
export { shortCommand } from './short-command.js';
export { COMPUTER_ERROR_HINTS, refusalOutcome } from './refusals.js';
export type {
  BrowserActionResult,
  BrowserTransport,
  CallContext,
  ComputerPlace,
  FileTransport,
  ShellRunInput,
  ShellTransport,
  TransportAnswer,
} from './transport.js';
