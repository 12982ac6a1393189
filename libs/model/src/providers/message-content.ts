import { randomUUID } from 'node:crypto';
import type { ChatMessage, ContentPart } from '@lazyboy/contracts';

export type ImagePart = Extract<ContentPart, { type: 'image' }>;

export function imageDataUrl(part: ImagePart): string {
  return `data:${part.mimeType};base64,${part.dataBase64}`;
}

export function textOfParts(parts: ContentPart[]): string {
  return parts
    .filter((part): part is Extract<ContentPart, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/** An id for a tool call whose provider sent none (older llama.cpp builds), so results can still pair up. */
export function syntheticToolCallId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

/**
 * Neither wire format reliably accepts images inside a tool result, but both accept them from the user.
 * So a tool result keeps its text, and after each run of consecutive tool results one user message
 * carries their images, each group introduced by the call it belongs to. The user message comes after
 * the whole run because the tool results must directly follow the assistant message that called them.
 */
export function moveToolImagesToUserMessages(messages: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pending: ContentPart[] = [];
  const flush = (): void => {
    if (pending.length > 0) out.push({ role: 'user', content: pending });
    pending = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') {
      flush();
      out.push(message);
      continue;
    }
    if (typeof message.content === 'string') {
      out.push(message);
      continue;
    }
    const images = message.content.filter((part): part is ImagePart => part.type === 'image');
    const text = textOfParts(message.content);
    if (images.length === 0) {
      out.push({ ...message, content: text });
      continue;
    }
    out.push({ ...message, content: text === '' ? '(the result is in the next message)' : text });
    pending.push(
      { type: 'text', text: `Image${images.length > 1 ? 's' : ''} from the result of tool call ${message.toolCallId}:` },
      ...images,
    );
  }
  flush();
  return out;
}
