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
import { imageDataUrl, moveToolImagesToUserMessages, syntheticToolCallId, textOfParts } from './message-content.js';

// ChatMessage and ModelRequest to and from the Chat Completions wire format (POST /chat/completions).

function wirePart(part: ContentPart): JsonRecord {
  return part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { url: imageDataUrl(part) } };
}

function wireMessage(message: ChatMessage): JsonRecord {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: typeof message.content === 'string' ? message.content : message.content.map(wirePart) };
    case 'assistant': {
      const toolCalls = message.toolCalls ?? [];
      // The API wants text or tool calls; an assistant turn with neither still needs its (empty) text.
      if (toolCalls.length === 0) return { role: 'assistant', content: message.content ?? '' };
      return {
        role: 'assistant',
        content: message.content || null,
        tool_calls: toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
    case 'tool':
      return {
        role: 'tool',
        tool_call_id: message.toolCallId,
        content: typeof message.content === 'string' ? message.content : textOfParts(message.content),
      };
  }
}

export function toChatCompletionsMessages(messages: ChatMessage[]): JsonRecord[] {
  return moveToolImagesToUserMessages(messages).map(wireMessage);
}

export function buildChatCompletionsBody(
  model: string,
  request: ModelRequest,
  options: { stream: boolean; defaultTemperature?: number },
): JsonRecord {
  const body: JsonRecord = { model, messages: toChatCompletionsMessages(request.messages) };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body['tools'] = tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    // tool_choice without tools is an error at OpenAI, so it only travels with them.
    if (request.toolChoice) body['tool_choice'] = request.toolChoice;
  }
  const temperature = request.temperature ?? options.defaultTemperature;
  if (temperature !== undefined) body['temperature'] = temperature;
  if (request.maxOutputTokens !== undefined) body['max_tokens'] = request.maxOutputTokens;
  if (options.stream) {
    body['stream'] = true;
    body['stream_options'] = { include_usage: true };
  }
  return body;
}

export function mapChatFinishReason(reason: unknown, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'stop':
      // Some local servers say "stop" on a turn that called tools; the calls are what matter.
      return hasToolCalls ? 'tool_calls' : 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'unknown';
  }
}

export function parseChatUsage(value: unknown): ModelUsage | undefined {
  if (!isRecord(value)) return undefined;
  const inputTokens = numberField(value, 'prompt_tokens');
  const outputTokens = numberField(value, 'completion_tokens');
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  return { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 };
}

/** Message content is a string, null, or (some servers) an array of text parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) ? (stringField(part, 'text') ?? '') : '')).join('');
}

/** Arguments are JSON text on the wire, but some servers send the object itself. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

function parseToolCall(value: unknown): ToolCall | undefined {
  if (!isRecord(value)) return undefined;
  const fn = recordField(value, 'function') ?? {};
  const name = stringField(fn, 'name');
  // A call without a name cannot be executed or answered; dropping it lets the turn go on.
  if (!name) return undefined;
  return { id: stringField(value, 'id') || syntheticToolCallId(), name, arguments: argumentsText(fn['arguments']) };
}

export function parseChatCompletion(json: unknown, endpoint: ModelEndpoint): ModelResponse {
  if (!isRecord(json)) {
    throw new ModelProtocolError(`the model provider ${endpoint.provider} answered with JSON that is not an object`, {
      provider: endpoint.provider,
    });
  }
  if ('error' in json && json['error'] !== null) throw errorForReport(endpoint, reportFromObject(json));
  const choice = arrayField(json, 'choices')[0];
  const message = isRecord(choice) ? recordField(choice, 'message') : undefined;
  if (!isRecord(choice) || !message) {
    throw new ModelProtocolError(`the model provider ${endpoint.provider} answered without a choice`, {
      provider: endpoint.provider,
    });
  }
  const toolCalls = arrayField(message, 'tool_calls')
    .map(parseToolCall)
    .filter((call): call is ToolCall => call !== undefined);
  const usage = parseChatUsage(json['usage']);
  return {
    text: contentText(message['content']),
    toolCalls,
    finishReason: mapChatFinishReason(choice['finish_reason'], toolCalls.length > 0),
    ...(usage ? { usage } : {}),
  };
}
