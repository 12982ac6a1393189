import type { ChatMessage } from '@lazyboy/contracts';
import type { ReceivedRequest } from '@lazyboy/model';

// What scripted models in the cross-app suites read from a request: who said what last.

export const contentText = (content: ChatMessage['content']): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => ('text' in p ? p.text : '')).join('');

/** Providers get a tool's screenshot as a user message of its own; it is not the person speaking. */
export const isImageCarrier = (m: ChatMessage): boolean =>
  m.role === 'user' && contentText(m.content).startsWith('Image from the result of tool call');

/** What the person said last ('' before they spoke). */
export function lastPersonText(request: ReceivedRequest): string {
  const user = [...request.messages].reverse().find((m) => m.role === 'user' && !isImageCarrier(m));
  return user ? contentText(user.content) : '';
}

/** The newest tool result since the person last spoke ('' when the model has not acted yet). */
export function lastToolText(request: ReceivedRequest): string {
  for (const m of [...request.messages].reverse()) {
    if (m.role === 'tool') return contentText(m.content);
    if (m.role === 'user' && !isImageCarrier(m)) return '';
  }
  return '';
}
