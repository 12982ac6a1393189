import { Injectable } from '@nestjs/common';
import type { ChatMessage, MessageNotice } from '@lazyboy/contracts';
import type { Message } from '../persistence/generated/client.js';
import { uuidv7 } from '../persistence/uuidv7.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { messageContent, type StoredMessageContent } from '../chats/message-views.js';
import { StaleLeaseError, type RunLease } from './run-lease.js';
import { heldBy } from './run-transitions.js';
import type { RunContext } from './runs.repository.js';

/** The chat messages a run reads (its context) and writes (the agent's answers), the latter fenced. */
@Injectable()
export class RunMessagesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The conversation before the run's trigger message, oldest first: final texts only, no progress notes.
   * This and `write` are plain SQL: they run for every run.
   */
  async history(run: RunContext, limit: number): Promise<ChatMessage[]> {
    if (!run.chatId || !run.triggerMessage) return [];
    const { createdAt, id } = run.triggerMessage;
    const rows = await this.prisma.$queryRaw<Pick<Message, 'role' | 'content'>[]>`
      SELECT role, content FROM "Message"
      WHERE "chatId" = ${run.chatId}::uuid AND role IN ('user', 'assistant')
        AND ("createdAt", id) < (${createdAt}, ${id}::uuid)
      ORDER BY "createdAt" DESC, id DESC
      LIMIT ${limit}`;
    return rows.reverse().flatMap((m): ChatMessage[] => {
      const content = m.content as Partial<StoredMessageContent> | null;
      if (typeof content?.text !== 'string' || content.progress) return [];
      return m.role === 'user' ? [{ role: 'user', content: content.text }] : [{ role: 'assistant', content: content.text }];
    });
  }

  /** An answer or progress note of the run (or the notice it ended with), written only while the lease is still ours. */
  async write(lease: RunLease, run: RunContext, text: string, progress: boolean, notice?: MessageNotice): Promise<Message> {
    if (!run.chatId) throw new Error('a run without a chat has nowhere to write');
    // The fenced UPDATE locks the run row for the statement: a takeover's claim waits until the message is in.
    const rows = await this.prisma.$queryRaw<Message[]>`
      WITH lease AS (
        UPDATE "Run" SET "updatedAt" = now()
        WHERE ${heldBy(lease)}
        RETURNING id
      ), message AS (
        INSERT INTO "Message" (id, "workspaceId", "chatId", role, content, "agentId", "runId")
        SELECT ${uuidv7()}::uuid, ${run.workspaceId}::uuid, ${run.chatId}::uuid, 'assistant',
               ${JSON.stringify(messageContent(text, progress, notice))}::jsonb, ${run.agentId}::uuid, lease.id
        FROM lease
        RETURNING *
      ), touched AS (
        UPDATE "Chat" SET "lastMessageAt" = m."createdAt", "updatedAt" = now()
        FROM message m WHERE "Chat".id = ${run.chatId}::uuid
      )
      SELECT * FROM message`;
    const message = rows[0];
    if (!message) throw new StaleLeaseError(lease.runId);
    return message;
  }
}
