import type { ChatMessage, ContentPart, ModelClient } from '@lazyboy/contracts';
import type { SecretRedactor } from './secret-redactor.js';

/**
 * The model client with every request's text redacted: the last line of defence, for a secret that came in
 * another way than a tool result (a person pasting a saved password into the chat, a resumed checkpoint
 * written before an account was saved).
 */
export function redactingModelClient(model: ModelClient, redactor: SecretRedactor): ModelClient {
  return {
    description: model.description,
    complete: (request, onEvent) =>
      model.complete({ ...request, messages: request.messages.map((m) => redactMessage(m, redactor)) }, onEvent),
  };
}

function redactMessage(message: ChatMessage, redactor: SecretRedactor): ChatMessage {
  const parts = (content: string | ContentPart[]) =>
    typeof content === 'string'
      ? redactor.redact(content)
      : content.map((part): ContentPart => (part.type === 'text' ? { ...part, text: redactor.redact(part.text) } : part));
  switch (message.role) {
    case 'system':
      return { ...message, content: redactor.redact(message.content) };
    case 'assistant':
      return { ...message, content: message.content === null ? null : redactor.redact(message.content) };
    case 'user':
    case 'tool':
      return { ...message, content: parts(message.content) };
  }
}
