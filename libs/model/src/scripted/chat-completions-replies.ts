import type { FinishReason } from '@lazyboy/contracts';
import type { JsonRecord } from '../json-values.js';
import { type ScriptedOutput, splitArguments, splitText } from './script.js';

// What an OpenAI-compatible /chat/completions endpoint answers, for one scripted output.

export interface ReplyMeta {
  id: string;
  model: string;
  created: number;
}

function wireFinishReason(reason: FinishReason): string | null {
  return reason === 'unknown' ? null : reason;
}

function wireUsage(output: ScriptedOutput): JsonRecord {
  const { inputTokens, outputTokens } = output.usage;
  return { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
}

export function chatCompletionJson(output: ScriptedOutput, meta: ReplyMeta): JsonRecord {
  const message: JsonRecord = {
    role: 'assistant',
    content: output.toolCalls.length > 0 && output.text === '' ? null : output.text,
  };
  if (output.toolCalls.length > 0) {
    message['tool_calls'] = output.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, finish_reason: wireFinishReason(output.finishReason) }],
    usage: wireUsage(output),
  };
}

const frame = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;

/** The deltas of a streamed completion, and the frames that end it normally. */
export function chatCompletionFrames(
  output: ScriptedOutput,
  meta: ReplyMeta,
  includeUsage: boolean,
): { deltas: string[]; end: string[] } {
  const chunk = (delta: JsonRecord, finishReason: string | null = null): string =>
    frame({
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
  const deltas = [chunk({ role: 'assistant', content: '' })];
  for (const piece of splitText(output.text)) deltas.push(chunk({ content: piece }));
  output.toolCalls.forEach((call, index) => {
    deltas.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of splitArguments(call.arguments))
      deltas.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  const end = [chunk({}, wireFinishReason(output.finishReason))];
  if (includeUsage) {
    end.push(
      frame({
        id: meta.id,
        object: 'chat.completion.chunk',
        created: meta.created,
        model: meta.model,
        choices: [],
        usage: wireUsage(output),
      }),
    );
  }
  end.push('data: [DONE]\n\n');
  return { deltas, end };
}

export function chatStreamErrorFrame(message: string): string {
  return frame({ error: { message, type: 'server_error', code: 'server_error' } });
}
