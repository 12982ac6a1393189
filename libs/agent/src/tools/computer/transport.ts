import type {
  BrowserActionBody,
  BrowserActionName,
  BrowserActionResponse,
  FilesListResponse,
  FilesReadResponse,
  FilesWriteResponse,
  ShellOutputResponse,
  ShellRunResponse,
} from '@lazyboy/contracts';
import type { ToolContext, ToolOutcome } from '../tool.js';

// The ports of the computer tools: one small interface per tool family, with two implementations: the
// CLI's in-process one (local Chromium through libs/desktop, a local shell, local files) and the
// service's, which calls the computer's worker over its contract routes. The requests and answers are the
// worker API's own (libs/contracts), so both transports speak one protocol and the tools render one way.

/** What a transport hands back: its answer, or the outcome the tool returns instead (a refusal, a lost lease). */
export type TransportAnswer<T> = { ok: true; value: T } | { ok: false; outcome: ToolOutcome };

export type CallContext = Pick<ToolContext, 'signal' | 'callId'>;

/** A browser action's answer without the worker's slot: the page after the action, as the model reads it. */
export type BrowserActionResult = Omit<BrowserActionResponse, 'slot' | 'action'>;

export interface BrowserTransport {
  act<N extends BrowserActionName>(
    action: N,
    body: BrowserActionBody<N>,
    ctx: CallContext,
  ): Promise<TransportAnswer<BrowserActionResult>>;
}

export interface ShellRunInput {
  command: string;
  /** The command's deadline: it is killed (its whole process group or sandbox) when it passes. */
  timeoutMs: number;
  /** How long the call waits for the command before answering `done: false`; it keeps running. */
  blockUntilMs: number;
}

export interface ShellTransport {
  run(input: ShellRunInput, ctx: CallContext): Promise<TransportAnswer<ShellRunResponse>>;
  /** What the command wrote since the last read (the end of it when a lot), and whether it still runs. */
  output(commandId: number, ctx: CallContext): Promise<TransportAnswer<ShellOutputResponse>>;
}

export interface FileTransport {
  read(input: { path: string; offset?: number; length: number }, ctx: CallContext): Promise<TransportAnswer<FilesReadResponse>>;
  write(input: { path: string; content: string }, ctx: CallContext): Promise<TransportAnswer<FilesWriteResponse>>;
  list(input: { path: string }, ctx: CallContext): Promise<TransportAnswer<FilesListResponse>>;
}

/** Where the shell and file tools work, in words for the model's tool descriptions. */
export interface ComputerPlace {
  /** Where commands run and relative paths start, e.g. "the working directory" or "your home folder". */
  home: string;
  /** Appended to the shell's description: what is special about this place. */
  shellNote?: string;
}
