import type { ToolSpec } from '@lazyboy/contracts';
import { isRecord } from '../../json-values.js';
import { dropOmittedOptionals, FREE_FORM_OBJECT, type GrammarSchema, toGrammarSchema } from './grammar-schema.js';

// With tools on offer, the model's whole reply is one JSON object, forced by a grammar:
//
//   {"name": "<tool>", "arguments": {…}}   calls that tool, with arguments shaped by its parameter schema
//   {"answer": "<text>"}                   replies without a tool (not offered when toolChoice is 'required')
//
// Each tool gets its own oneOf branch whose name is a `const`, so the arguments always follow the schema of
// the tool the reply names: one grammar checks the pairing that a plain `{name: enum, arguments: object}`
// would leave open. An answer cannot be mistaken for a call whatever the tools are called, since only
// calls have a "name" key. One call per reply: the agent loop asks again after each result.

const ANSWER_KEY = 'answer';

export type ToolReply = { kind: 'call'; name: string; arguments: string } | { kind: 'answer'; text: string };

/**
 * The JSON Schema of a reply (see above), for node-llama-cpp's grammar generator. `freeForm`: every tool's
 * arguments as an object of scalars, for when llama.cpp rejects the grammar of the real schemas.
 */
export function toolReplySchema(tools: ToolSpec[], allowAnswer: boolean, freeForm = false): GrammarSchema {
  const branches: GrammarSchema[] = tools.map((tool) => ({
    type: 'object',
    properties: {
      name: { const: tool.name },
      arguments: (freeForm ? undefined : toGrammarSchema(tool.parameters)) ?? FREE_FORM_OBJECT,
    },
    required: ['name', 'arguments'],
  }));
  if (allowAnswer) {
    // Unbounded: the request's maxOutputTokens bounds it, and a cut-off answer is still kept (truncatedAnswer).
    branches.push({ type: 'object', properties: { [ANSWER_KEY]: { type: 'string' } }, required: [ANSWER_KEY] });
  }
  const [only] = branches;
  return branches.length === 1 && only ? only : { oneOf: branches };
}

/** How the transcript tells the model about the reply format (the grammar enforces it either way). */
export function toolReplyInstructions(allowAnswer: boolean): string {
  const call = '{"name": "<tool>", "arguments": {…}}';
  return allowAnswer
    ? `The assistant replies with one JSON object: ${call} calls a tool, {"${ANSWER_KEY}": "<text>"} answers.`
    : `The assistant replies with one JSON object calling a tool: ${call}.`;
}

/** The reply a grammar-valid JSON value stands for; undefined if it is neither a known call nor an answer. */
export function readToolReply(value: unknown, tools: ToolSpec[]): ToolReply | undefined {
  if (!isRecord(value)) return undefined;
  const answer = value[ANSWER_KEY];
  if (typeof answer === 'string') return { kind: 'answer', text: answer };
  const tool = tools.find((candidate) => candidate.name === value['name']);
  if (!tool) return undefined;
  const args = dropOmittedOptionals(value['arguments'] ?? {}, tool.parameters);
  // JSON.stringify would write such a number as null: a value the model never wrote (see number-rules.ts).
  if (hasNonFiniteNumber(args)) return undefined;
  return { kind: 'call', name: tool.name, arguments: JSON.stringify(args) };
}

function hasNonFiniteNumber(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFiniteNumber);
  return isRecord(value) && Object.values(value).some(hasNonFiniteNumber);
}

/**
 * The text of an answer that ran out of tokens before its closing quote, so that a long answer is kept
 * (as a 'length' finish) rather than lost; undefined when the reply was not an answer.
 */
export function truncatedAnswer(reply: string): string | undefined {
  const start = new RegExp(`^\\s*\\{\\s*"${ANSWER_KEY}"\\s*:\\s*"`).exec(reply);
  if (!start) return undefined;
  const body = reply.slice(start[0].length);
  const closingQuote = /(?<!\\)(?:\\\\)*"/.exec(body);
  // Without a closing quote the cut may have fallen inside an escape: drop the unfinished escape.
  const content = closingQuote
    ? body.slice(0, closingQuote.index + closingQuote[0].length - 1)
    : body.replace(/((?:^|[^\\])(?:\\\\)*)\\(?:u[0-9a-fA-F]{0,3})?$/, '$1');
  try {
    return JSON.parse(`"${content}"`) as string;
  } catch {
    return undefined;
  }
}
