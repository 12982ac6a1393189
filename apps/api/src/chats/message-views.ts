import { messageNoticeSchema, type MessageNotice, type MessageView, type ChatView } from '@lazyboy/contracts';
import type { Message, Chat } from '../persistence/generated/client.js';

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
    chatId: message.chatId,
    role: message.role,
    text: typeof content?.text === 'string' ? content.text : '',
    progress: content?.progress === true,
    clientNonce: message.clientNonce,
    authorUserId: message.authorUserId,
    agentId: message.agentId,
    runId: message.runId,
    notice: noticeOf(content?.notice),
    createdAt: message.createdAt.toISOString(),
  };
}

export function toChatView(chat: Chat): ChatView {
  return {
    id: chat.id,
    workspaceId: chat.workspaceId,
    agentId: chat.agentId,
    title: chat.title,
    lastMessageAt: chat.lastMessageAt.toISOString(),
    createdAt: chat.createdAt.toISOString(),
  };
}
