import type { ChatMessage, ContentPart, ToolCall, ToolSpec } from '@lazyboy/contracts';
import { arrayField, isRecord, type JsonRecord, recordField, stringField } from '../json-values.js';
import type { ScriptedApi } from './script.js';

// Wire requests (either API) back to provider-neutral messages and tools, leniently: the scripted
// server must show a test what a client sent, not judge it.

type Conversation = { messages: ChatMessage[]; tools: ToolSpec[] };

function imagePart(url: string): ContentPart {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match?.[1] !== undefined && match[2] !== undefined
    ? { type: 'image', mimeType: match[1], dataBase64: match[2] }
    : { type: 'text', text: `[image ${url}]` };
}

function partFromWire(part: unknown): ContentPart | undefined {
  if (!isRecord(part)) return undefined;
  switch (part['type']) {
    case 'text':
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: stringField(part, 'text') ?? '' };
    case 'image_url': {
      const image = part['image_url'];
      const url = typeof image === 'string' ? image : isRecord(image) ? stringField(image, 'url') : undefined;
      return url === undefined ? undefined : imagePart(url);
    }
    case 'input_image': {
      const url = stringField(part, 'image_url');
      return url === undefined ? undefined : imagePart(url);
    }
    default:
      return undefined;
  }
}

function partsFromWire(content: unknown): string | ContentPart[] {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map(partFromWire).filter((part): part is ContentPart => part !== undefined) : '';
}

function textFromWire(content: unknown): string {
  const parts = partsFromWire(content);
  return typeof parts === 'string' ? parts : parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function argumentsFromWire(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {});
}

function messageFromRole(item: JsonRecord): ChatMessage | undefined {
  const content = item['content'];
  switch (item['role']) {
    case 'system':
    case 'developer':
      return { role: 'system', content: textFromWire(content) };
    case 'user':
      return { role: 'user', content: partsFromWire(content) };
    case 'assistant': {
      const toolCalls: ToolCall[] = arrayField(item, 'tool_calls').flatMap((call) => {
        if (!isRecord(call)) return [];
        const fn = recordField(call, 'function') ?? {};
        return [
          {
            id: stringField(call, 'id') ?? '',
            name: stringField(fn, 'name') ?? '',
            arguments: argumentsFromWire(fn['arguments']),
          },
        ];
      });
      const text = content === null || content === undefined ? null : textFromWire(content);
      return { role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
    }
    case 'tool':
      return { role: 'tool', toolCallId: stringField(item, 'tool_call_id') ?? '', content: partsFromWire(content) };
    default:
      return undefined;
  }
}

function chatConversation(body: JsonRecord): Conversation {
  const messages = arrayField(body, 'messages').flatMap((item) => {
    const message = isRecord(item) ? messageFromRole(item) : undefined;
    return message ? [message] : [];
  });
  const tools = arrayField(body, 'tools').flatMap((tool): ToolSpec[] => {
    const fn = isRecord(tool) ? recordField(tool, 'function') : undefined;
    if (!fn) return [];
    return [
      {
        name: stringField(fn, 'name') ?? '',
        description: stringField(fn, 'description') ?? '',
        parameters: recordField(fn, 'parameters') ?? {},
      },
    ];
  });
  return { messages, tools };
}

function responsesConversation(body: JsonRecord): Conversation {
  const messages: ChatMessage[] = [];
  const instructions = stringField(body, 'instructions');
  if (instructions) messages.push({ role: 'system', content: instructions });
  const input = body['input'];
  if (typeof input === 'string') messages.push({ role: 'user', content: input });
  for (const item of Array.isArray(input) ? input : []) {
    if (!isRecord(item)) continue;
    if (item['type'] === 'function_call') {
      const call: ToolCall = {
        id: stringField(item, 'call_id') ?? '',
        name: stringField(item, 'name') ?? '',
        arguments: argumentsFromWire(item['arguments']),
      };
      // Calls follow the assistant text they belong to; in ChatMessage form they are one message.
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.toolCalls = [...(last.toolCalls ?? []), call];
      else messages.push({ role: 'assistant', content: null, toolCalls: [call] });
    } else if (item['type'] === 'function_call_output') {
      messages.push({ role: 'tool', toolCallId: stringField(item, 'call_id') ?? '', content: partsFromWire(item['output']) });
    } else {
      const message = messageFromRole(item);
      if (message) messages.push(message);
    }
  }
  const tools = arrayField(body, 'tools').flatMap((tool): ToolSpec[] => {
    if (!isRecord(tool) || tool['type'] !== 'function') return [];
    return [
      {
        name: stringField(tool, 'name') ?? '',
        description: stringField(tool, 'description') ?? '',
        parameters: recordField(tool, 'parameters') ?? {},
      },
    ];
  });
  return { messages, tools };
}

export function conversationOf(api: ScriptedApi, body: JsonRecord): Conversation {
  return api === 'chat-completions' ? chatConversation(body) : responsesConversation(body);
}
