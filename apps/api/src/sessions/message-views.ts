import { messageNoticeSchema, type MessageNotice, type MessageView, type SessionView } from '@lazyboy/contracts';
import type { Message, Session } from '../persistence/generated/client.js';

/**
 * Message.content: the text of a chat message, whether it was a progress note of a working agent, and for
 * the message a run ended with on an error or a guard, its stable code.
 */
export interface StoredMessageContent {
  text: string;
  progress?: boolean;
  notice?: MessageNotice;
}

export function messageContent(text: string, progress = false, notice?: MessageNotice): StoredMessageContent {
  return { text, ...(progress ? { progress } : {}), ...(notice ? { notice } : {}) };
}

/** A stored notice as the view shows it; one that does not parse (a newer code) is dropped, the text stays. */
function noticeOf(stored: unknown): MessageNotice | null {
  if (stored === undefined || stored === null) return null;
  const parsed = messageNoticeSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
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
    notice: noticeOf(content?.notice),
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
