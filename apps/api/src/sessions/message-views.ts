import type { MessageView, SessionView } from '@lazyboy/contracts';
import type { Message, Session } from '../persistence/generated/client.js';

/** Message.content: the text of a chat message, and whether it was a progress note of a working agent. */
export interface StoredMessageContent {
  text: string;
  progress?: boolean;
}

export function messageContent(text: string, progress = false): StoredMessageContent {
  return progress ? { text, progress } : { text };
}

export function toMessageView(message: Message): MessageView {
  const content = message.content as Partial<StoredMessageContent> | null;
  return {
    id: message.id,
    sessionId: message.sessionId,
    role: message.role,
    text: typeof content?.text === 'string' ? content.text : '',
    progress: content?.progress === true,
    clientNonce: message.clientNonce,
    authorUserId: message.authorUserId,
    botId: message.botId,
    runId: message.runId,
    createdAt: message.createdAt.toISOString(),
  };
}

export function toSessionView(session: Session): SessionView {
  return {
    id: session.id,
    workspaceId: session.workspaceId,
    botId: session.botId,
    title: session.title,
    lastMessageAt: session.lastMessageAt.toISOString(),
    createdAt: session.createdAt.toISOString(),
  };
}
