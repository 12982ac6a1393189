import type { FinishReason } from '@lazyboy/contracts';
import type { JsonRecord } from '../json-values.js';
import type { ReplyMeta } from './chat-completions-replies.js';
import { type ScriptedOutput, splitArguments, splitText } from './script.js';

// What an OpenAI /responses endpoint answers, for one scripted output.

function statusOf(reason: FinishReason): JsonRecord {
  switch (reason) {
    case 'stop':
    case 'tool_calls':
      return { status: 'completed', incomplete_details: null };
    case 'length':
      return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
    case 'content_filter':
      return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
    case 'unknown':
      return { status: 'incomplete', incomplete_details: { reason: 'unknown' } };
  }
}

function messageItem(meta: ReplyMeta, text: string): JsonRecord {
  return {
    type: 'message',
    id: `msg_${meta.id}`,
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

function functionCallItem(
  meta: ReplyMeta,
  call: ScriptedOutput['toolCalls'][number],
  position: number,
  args: string,
): JsonRecord {
  return {
    type: 'function_call',
    id: `fc_${meta.id}_${position}`,
    call_id: call.id,
    name: call.name,
    arguments: args,
    status: 'completed',
  };
}

function outputItems(output: ScriptedOutput, meta: ReplyMeta): JsonRecord[] {
  return [
    ...(output.text !== '' ? [messageItem(meta, output.text)] : []),
    ...output.toolCalls.map((call, position) => functionCallItem(meta, call, position, call.arguments)),
  ];
}

function envelope(meta: ReplyMeta, extra: JsonRecord): JsonRecord {
  return { id: meta.id, object: 'response', created_at: meta.created, model: meta.model, ...extra };
}

export function responseJson(output: ScriptedOutput, meta: ReplyMeta): JsonRecord {
  const { inputTokens, outputTokens } = output.usage;
  return envelope(meta, {
    ...statusOf(output.finishReason),
    output: outputItems(output, meta),
    usage: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
  });
}

/** The events of a streamed response: the deltas, and the events that end it normally. */
export function responseFrames(output: ScriptedOutput, meta: ReplyMeta): { deltas: string[]; end: string[] } {
  let sequence = 0;
  const event = (type: string, data: JsonRecord): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
  const deltas = [event('response.created', { response: envelope(meta, { status: 'in_progress', output: [] }) })];
  let outputIndex = 0;
  if (output.text !== '') {
    const item = messageItem(meta, output.text);
    const itemId = item['id'];
    deltas.push(
      event('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } }),
    );
    for (const piece of splitText(output.text)) {
      deltas.push(
        event('response.output_text.delta', { item_id: itemId, output_index: outputIndex, content_index: 0, delta: piece }),
      );
    }
    deltas.push(
      event('response.output_text.done', { item_id: itemId, output_index: outputIndex, content_index: 0, text: output.text }),
    );
    deltas.push(event('response.output_item.done', { output_index: outputIndex, item }));
    outputIndex += 1;
  }
  output.toolCalls.forEach((call, position) => {
    const item = functionCallItem(meta, call, position, call.arguments);
    const itemId = item['id'];
    deltas.push(
      event('response.output_item.added', {
        output_index: outputIndex,
        item: { ...functionCallItem(meta, call, position, ''), status: 'in_progress' },
      }),
    );
    for (const piece of splitArguments(call.arguments)) {
      deltas.push(event('response.function_call_arguments.delta', { item_id: itemId, output_index: outputIndex, delta: piece }));
    }
    deltas.push(
      event('response.function_call_arguments.done', { item_id: itemId, output_index: outputIndex, arguments: call.arguments }),
    );
    deltas.push(event('response.output_item.done', { output_index: outputIndex, item }));
    outputIndex += 1;
  });
  const final = responseJson(output, meta);
  const endType = final['status'] === 'completed' ? 'response.completed' : 'response.incomplete';
  return { deltas, end: [event(endType, { response: final })] };
}

export function responseFailedFrame(message: string, meta: ReplyMeta): string {
  const data = {
    type: 'response.failed',
    response: envelope(meta, { status: 'failed', output: [], error: { code: 'server_error', message } }),
  };
  return `event: response.failed\ndata: ${JSON.stringify(data)}\n\n`;
}
