import type { ChatMessage, FinishReason, ModelUsage, ToolSpec } from '@lazyboy/contracts';

// The language a test (or the offline smoke run) uses to tell the ScriptedModelServer what to answer.

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as its JSON text; a string is sent as is (so invalid JSON can be scripted). */
  arguments: Record<string, unknown> | string;
  /** Default: call_scripted_<request>_<position>. */
  id?: string;
}

/** One answer. A turn with neither text nor tool calls is an empty assistant message. */
export interface Turn {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Default: tool_calls when there are tool calls, else stop. */
  finishReason?: FinishReason;
  /** Default: about four characters a token. */
  usage?: ModelUsage;
  /** An error answer: this status (400 or more) with errorBody. */
  httpStatus?: number;
  /**
   * Sent instead of an answer: an object as JSON, a string as plain text. Default: an OpenAI-style
   * error object. With a status below 400 it scripts a raw answer (a provider that misbehaves);
   * without a status it is sent with 500.
   */
  errorBody?: unknown;
  /** Answer with a redirect to this URL instead (httpStatus, default 307, as its status). */
  redirectTo?: string;
  /** Sent as the Retry-After header (decimals allowed, which our client reads). */
  retryAfterSeconds?: number;
  /** In a stream: after the text and tool-call deltas, an error event with this message instead of the end. */
  streamError?: string;
  /** Wait this long before answering at all. */
  delayMs?: number;
  /** Wait this long between two stream events. */
  chunkDelayMs?: number;
  /** An empty assistant message: no text, no tool calls (whatever else the turn says). */
  empty?: boolean;
}

export type ScriptedApi = 'chat-completions' | 'responses';

/** A request as the server received it, with the conversation translated back to provider-neutral form. */
export interface ReceivedRequest {
  /** 0 for the first request the server received since start (or the last setScript). */
  index: number;
  api: ScriptedApi;
  path: string;
  stream: boolean;
  model: string | undefined;
  messages: ChatMessage[];
  tools: ToolSpec[];
  toolChoice: unknown;
  /** The parsed JSON body exactly as sent. */
  body: Record<string, unknown>;
  /** Lower-case header names. */
  headers: Record<string, string>;
}

/** Turns consumed in order, or a function deciding each answer from the request. */
export type Script = Turn[] | ((request: ReceivedRequest) => Turn | Promise<Turn>);

/** A turn made concrete for one request: ids assigned, arguments as text, usage counted. */
export interface ScriptedOutput {
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: FinishReason;
  usage: ModelUsage;
}

export function outputOf(turn: Turn, request: ReceivedRequest): ScriptedOutput {
  const text = turn.empty ? '' : (turn.text ?? '');
  const toolCalls = (turn.empty ? [] : (turn.toolCalls ?? [])).map((call, position) => ({
    id: call.id ?? `call_scripted_${request.index}_${position}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  const produced = text.length + toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  return {
    text,
    toolCalls,
    finishReason: turn.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: turn.usage ?? {
      inputTokens: Math.ceil(JSON.stringify(request.messages).length / 4),
      outputTokens: Math.ceil(produced / 4),
    },
  };
}

/** Text in word-sized pieces, so a stream has several deltas. */
export function splitText(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Arguments in three pieces (fewer when shorter), so clients must concatenate them. */
export function splitArguments(text: string): string[] {
  if (text === '') return [];
  const size = Math.ceil(text.length / 3);
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}
