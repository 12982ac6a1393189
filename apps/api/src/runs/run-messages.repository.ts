import { Injectable } from '@nestjs/common';
import type { ChatMessage } from '@lazyboy/contracts';
import type { Message, Prisma } from '../persistence/generated/client.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { messageContent, type StoredMessageContent } from '../sessions/message-views.js';
import type { RunContext } from './run-execution.js';
import { RunsRepository, type RunLease } from './runs.repository.js';

/** The chat messages a run reads (its context) and writes (the agent's answers), the latter fenced. */
@Injectable()
export class RunMessagesRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly runs: RunsRepository,
  ) {}

  /** The conversation before the run's trigger message, oldest first: final texts only, no progress notes. */
  async history(run: RunContext, limit: number): Promise<ChatMessage[]> {
    if (!run.sessionId || !run.triggerMessage) return [];
    const rows = await this.prisma.message.findMany({
      where: {
        sessionId: run.sessionId,
        role: { in: ['user', 'assistant'] },
        OR: [
          { createdAt: { lt: run.triggerMessage.createdAt } },
          { createdAt: run.triggerMessage.createdAt, id: { lt: run.triggerMessage.id } },
        ],
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
    });
    return rows.reverse().flatMap((m): ChatMessage[] => {
      const content = m.content as Partial<StoredMessageContent> | null;
      if (typeof content?.text !== 'string' || content.progress) return [];
      return m.role === 'user' ? [{ role: 'user', content: content.text }] : [{ role: 'assistant', content: content.text }];
    });
  }

  async write(lease: RunLease, run: RunContext, text: string, progress: boolean): Promise<Message> {
    return this.runs.withLease(lease, async (tx) => {
      if (!run.sessionId) throw new Error('a run without a chat has nowhere to write');
      const message = await tx.message.create({
        data: {
          workspaceId: run.workspaceId,
          sessionId: run.sessionId,
          role: 'assistant',
          content: messageContent(text, progress) as unknown as Prisma.InputJsonValue,
          botId: run.botId,
          runId: run.id,
        },
      });
      await tx.session.update({ where: { id: run.sessionId }, data: { lastMessageAt: message.createdAt } });
      return message;
    });
  }
}
