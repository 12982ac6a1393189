import type { ChatMessage, ContentPart, ToolSpec } from '@lazyboy/contracts';
import { outlineParameters } from './schema-outline.js';
import { toolReplyInstructions } from './tool-reply.js';

// A GGUF file is driven here as a plain completion model, so the conversation becomes one plain-text
// transcript that ends with the assistant's cue. No chat template is needed, which keeps every GGUF usable
// (a template would suit instruction-tuned models better; see the README). Earlier tool calls appear in the
// same JSON the grammar makes the model write, so the transcript shows the model its own format.
//
//   system: <leading system messages>
//
//   Tools the assistant can call:
//   - lookup: Looks a word up.
//       query: string — the word
//   <reply format>
//
//   user: …
//
//   assistant: {"name":"lookup","arguments":{"query":"x"}}
//
//   tool (lookup): …
//
//   assistant:

const ASSISTANT = 'assistant:';

/** Where a free-text answer ends: the model starting the next turn of the transcript itself. */
export const TURN_STOP_TRIGGERS = ['\nuser:', '\nassistant:', '\nsystem:', '\ntool ('];

export interface Transcript {
  /** The leading system messages and the tool list: always kept. */
  header: string;
  /** One block per later message, oldest first: these give way, oldest first, when the context is short. */
  turns: string[];
  /** What the model continues. */
  cue: string;
}

export interface TranscriptTools {
  tools: ToolSpec[];
  /** Whether the model may answer without calling a tool. */
  allowAnswer: boolean;
}

export function buildTranscript(messages: ChatMessage[], tools?: TranscriptTools): Transcript {
  const leading = messages.findIndex((message) => message.role !== 'system');
  const systemCount = leading === -1 ? messages.length : leading;
  const toolNames = new Map<string, string>();
  const header = [
    ...messages.slice(0, systemCount).map((message) => renderTurn(message, toolNames)),
    ...(tools && tools.tools.length > 0 ? [toolList(tools)] : []),
  ].join('\n\n');
  const turns: string[] = [];
  for (const message of messages.slice(systemCount)) turns.push(renderTurn(message, toolNames));
  return { header, turns, cue: ASSISTANT };
}

/** The transcript text with the turns from `firstTurn` on; earlier turns are replaced by a note. */
export function renderTranscript(transcript: Transcript, firstTurn = 0): string {
  const omitted =
    firstTurn > 0 ? [`(${firstTurn} earlier message${firstTurn === 1 ? '' : 's'} left out: the context is full)`] : [];
  return [transcript.header, ...omitted, ...transcript.turns.slice(firstTurn), transcript.cue]
    .filter((block) => block !== '')
    .join('\n\n');
}

function toolList({ tools, allowAnswer }: TranscriptTools): string {
  const entries = tools.map((tool) =>
    [`- ${tool.name}: ${oneLineText(tool.description)}`, ...outlineParameters(tool.parameters).map((line) => `    ${line}`)].join(
      '\n',
    ),
  );
  return ['Tools the assistant can call:', ...entries, toolReplyInstructions(allowAnswer)].join('\n');
}

function renderTurn(message: ChatMessage, toolNames: Map<string, string>): string {
  switch (message.role) {
    case 'system':
      return `system: ${message.content}`;
    case 'user':
      return `user: ${textOf(message.content)}`;
    case 'assistant': {
      const lines = message.content ? [`${ASSISTANT} ${message.content}`] : [];
      for (const call of message.toolCalls ?? []) {
        toolNames.set(call.id, call.name);
        lines.push(`${ASSISTANT} {"name":${JSON.stringify(call.name)},"arguments":${call.arguments.trim() || '{}'}}`);
      }
      return lines.length > 0 ? lines.join('\n') : `${ASSISTANT} (nothing)`;
    }
    case 'tool':
      return `tool (${toolNames.get(message.toolCallId) ?? message.toolCallId}): ${textOf(message.content)}`;
  }
}

/** Text parts as they are; images, which a text-only model cannot see, as a placeholder. */
function textOf(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : `[image (${part.mimeType}) not shown]`)).join('\n');
}

function oneLineText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export interface FittedTranscript {
  text: string;
  tokens: number;
  /** How many of the oldest turns were left out. */
  firstTurn: number;
}

/**
 * The transcript with as many of the latest turns as fit in `budget` tokens (the header, the last turn and
 * the cue always stay); undefined when even those do not fit.
 */
export function fitTranscript(
  transcript: Transcript,
  countTokens: (text: string) => number,
  budget: number,
): FittedTranscript | undefined {
  const lastTurn = transcript.turns.length - 1;
  const whole = renderTranscript(transcript);
  const wholeTokens = countTokens(whole);
  if (wholeTokens <= budget) return { text: whole, tokens: wholeTokens, firstTurn: 0 };
  // Estimate from per-turn counts, then confirm on the real text (tokens can merge across block borders).
  const turnTokens = transcript.turns.map((turn) => countTokens(turn) + 1);
  let estimate = countTokens(renderTranscript(transcript, transcript.turns.length)) + turnTokens.reduce((a, b) => a + b, 0);
  let firstTurn = 0;
  while (firstTurn < lastTurn && estimate > budget) estimate -= turnTokens[firstTurn++] ?? 0;
  for (;;) {
    const text = renderTranscript(transcript, firstTurn);
    const tokens = countTokens(text);
    if (tokens <= budget) return { text, tokens, firstTurn };
    if (firstTurn >= lastTurn) return undefined;
    firstTurn += 1;
  }
}
