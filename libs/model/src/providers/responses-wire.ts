import type {
  ChatMessage,
  ContentPart,
  FinishReason,
  ModelRequest,
  ModelResponse,
  ModelUsage,
  ToolCall,
} from '@lazyboy/contracts';
import { ModelProtocolError } from '../errors.js';
import type { ModelEndpoint } from '../http/endpoint.js';
import { errorForReport, reportFromObject } from '../http/provider-errors.js';
import { arrayField, isRecord, type JsonRecord, numberField, recordField, stringField } from '../json-values.js';
import { argumentsText } from './chat-completions-wire.js';
import { imageDataUrl, moveToolImagesToUserMessages, syntheticToolCallId, textOfParts } from './message-content.js';

// ChatMessage and ModelRequest to and from the Responses wire format (POST /responses).

function inputPart(part: ContentPart): JsonRecord {
  return part.type === 'text' ? { type: 'input_text', text: part.text } : { type: 'input_image', image_url: imageDataUrl(part) };
}

/** Leading system messages become `instructions`; everything else becomes input items. */
export function toResponsesInput(messages: ChatMessage[]): { instructions?: string; input: JsonRecord[] } {
  const prepared = moveToolImagesToUserMessages(messages);
  const leading: string[] = [];
  let start = 0;
  for (const message of prepared) {
    if (message.role !== 'system') break;
    leading.push(message.content);
    start += 1;
  }
  const input: JsonRecord[] = [];
  for (const message of prepared.slice(start)) {
    switch (message.role) {
      case 'system':
        input.push({ role: 'system', content: message.content });
        break;
      case 'user':
        input.push({
          role: 'user',
          content: typeof message.content === 'string' ? message.content : message.content.map(inputPart),
        });
        break;
      case 'assistant':
        if (message.content) input.push({ role: 'assistant', content: message.content });
        for (const call of message.toolCalls ?? []) {
          input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
        }
        break;
      case 'tool':
        input.push({
          type: 'function_call_output',
          call_id: message.toolCallId,
          output: typeof message.content === 'string' ? message.content : textOfParts(message.content),
        });
        break;
    }
  }
  return { ...(leading.length > 0 ? { instructions: leading.join('\n\n') } : {}), input };
}

export function buildResponsesBody(
  model: string,
  request: ModelRequest,
  options: { stream: boolean; defaultTemperature?: number },
): JsonRecord {
  // The conversation lives in our database; the provider need not keep a copy of it.
  const body: JsonRecord = { model, ...toResponsesInput(request.messages), store: false };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    // `strict` defaults to true here, which rejects most hand-written schemas; we validate arguments ourselves.
    body['tools'] = tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: false,
    }));
    if (request.toolChoice) body['tool_choice'] = request.toolChoice;
  }
  const temperature = request.temperature ?? options.defaultTemperature;
  if (temperature !== undefined) body['temperature'] = temperature;
  if (request.maxOutputTokens !== undefined) body['max_output_tokens'] = request.maxOutputTokens;
  if (options.stream) body['stream'] = true;
  return body;
}

export function parseResponsesUsage(value: unknown): ModelUsage | undefined {
  if (!isRecord(value)) return undefined;
  const inputTokens = numberField(value, 'input_tokens');
  const outputTokens = numberField(value, 'output_tokens');
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  return { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 };
}

/** The finish reason from a response's `status` and `incomplete_details`. */
export function mapResponsesFinishReason(response: JsonRecord, hasToolCalls: boolean): FinishReason {
  const status = response['status'];
  if (status === 'completed') return hasToolCalls ? 'tool_calls' : 'stop';
  if (status === 'incomplete') {
    const reason = stringField(recordField(response, 'incomplete_details') ?? {}, 'reason');
    if (reason === 'max_output_tokens') return 'length';
    if (reason === 'content_filter') return 'content_filter';
  }
  return 'unknown';
}

function functionCallFromItem(item: JsonRecord): ToolCall | undefined {
  const name = stringField(item, 'name');
  if (!name) return undefined;
  return {
    id: stringField(item, 'call_id') || stringField(item, 'id') || syntheticToolCallId(),
    name,
    arguments: argumentsText(item['arguments']),
  };
}

/** Text of an output message item: its output_text parts, and a refusal's wording. */
function messageItemText(item: JsonRecord): string {
  return arrayField(item, 'content')
    .map((part) => (isRecord(part) ? (stringField(part, 'text') ?? stringField(part, 'refusal') ?? '') : ''))
    .join('');
}

export function throwIfFailed(response: JsonRecord, endpoint: ModelEndpoint): void {
  const error = response['error'];
  if (response['status'] === 'failed' || (error !== null && error !== undefined)) {
    throw errorForReport(endpoint, isRecord(error) ? reportFromObject(error) : {});
  }
}

export function parseResponse(json: unknown, endpoint: ModelEndpoint): ModelResponse {
  if (!isRecord(json)) {
    throw new ModelProtocolError(`the model provider ${endpoint.provider} answered with JSON that is not an object`, {
      provider: endpoint.provider,
    });
  }
  throwIfFailed(json, endpoint);
  if (!Array.isArray(json['output'])) {
    throw new ModelProtocolError(`the model provider ${endpoint.provider} answered without an output list`, {
      provider: endpoint.provider,
    });
  }
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const item of arrayField(json, 'output')) {
    if (!isRecord(item)) continue;
    if (item['type'] === 'message') text += messageItemText(item);
    if (item['type'] === 'function_call') {
      const call = functionCallFromItem(item);
      if (call) toolCalls.push(call);
    }
  }
  const usage = parseResponsesUsage(json['usage']);
  return {
    text,
    toolCalls,
    finishReason: mapResponsesFinishReason(json, toolCalls.length > 0),
    ...(usage ? { usage } : {}),
  };
}
