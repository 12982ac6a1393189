import { Injectable } from '@nestjs/common';
import { ACTIVE_RUN_STATUSES, type RunKind } from '@lazyboy/contracts';
import type { HumanAnswer } from '@lazyboy/agent';
import { Prisma, type Bot, type Message, type Run, type Session } from '../persistence/generated/client.js';
import { isUniqueViolation } from '../persistence/prisma-errors.js';
import { PrismaService } from '../persistence/prisma.service.js';
import type { Principal } from '../auth/principal.js';
import { visibleWorkspaces } from '../tenancy/workspace-scope.js';
import { RunsRepository } from '../runs/runs.repository.js';
import { messageContent } from './message-views.js';

export interface AcceptMessageInput {
  session: Session;
  authorUserId: string;
  text: string;
  clientNonce: string;
  kind: RunKind;
}

export interface AcceptedMessage {
  message: Message;
  run: Run;
  replayed: boolean;
  queuedBehindActive: boolean;
}

/** The same clientNonce was already used for a message of another chat. */
export class NonceReusedError extends Error {
  override readonly name = 'NonceReusedError';
}

@Injectable()
export class SessionsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly runs: RunsRepository,
  ) {}

  async visibleSession(principal: Principal, sessionId: string): Promise<Session | null> {
    return this.prisma.session.findFirst({ where: { id: sessionId, workspace: visibleWorkspaces(principal) } });
  }

  async create(bot: Pick<Bot, 'id' | 'workspaceId'>, title: string, createdById: string): Promise<Session> {
    return this.prisma.session.create({ data: { workspaceId: bot.workspaceId, botId: bot.id, title, createdById } });
  }

  async listForBot(botId: string, limit: number): Promise<Session[]> {
    return this.prisma.session.findMany({ where: { botId }, orderBy: [{ lastMessageAt: 'desc' }, { id: 'desc' }], take: limit });
  }

  async delete(sessionId: string): Promise<void> {
    await this.prisma.session.delete({ where: { id: sessionId } });
  }

  /** A page of messages, newest first, strictly older than `before`. */
  async messagesBefore(sessionId: string, before: string | undefined, limit: number): Promise<Message[]> {
    const cursor = before ? await this.prisma.message.findFirst({ where: { id: before, sessionId } }) : null;
    return this.prisma.message.findMany({
      where: {
        sessionId,
        ...(cursor
          ? { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] }
          : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
    });
  }

  async clearMessages(sessionId: string): Promise<number> {
    const { count } = await this.prisma.message.deleteMany({ where: { sessionId } });
    return count;
  }

  /**
   * Writes a user message and its work in one transaction: the answer to a run of this chat parked in
   * waiting_input, or a new queued run. A clientNonce seen before returns the first message and run.
   */
  async acceptMessage(input: AcceptMessageInput): Promise<AcceptedMessage> {
    // A retry is rare: the insert of its nonce fails (unique per workspace) and the first answer is read back.
    try {
      return await this.prisma.$transaction(async (tx) => {
        const { session } = input;
        const message = await tx.message.create({
          data: {
            workspaceId: session.workspaceId,
            sessionId: session.id,
            role: 'user',
            content: messageContent(input.text) as unknown as Prisma.InputJsonValue,
            clientNonce: input.clientNonce,
            authorUserId: input.authorUserId,
          },
        });
        const parked = await tx.run.findFirst({
          where: { botId: session.botId, sessionId: session.id, status: 'waiting_input' },
        });
        const answer: HumanAnswer = { kind: 'answer', text: input.text };
        const resumed = parked ? await this.runs.resume(parked.id, 'waiting_input', answer, tx) : null;
        const run =
          resumed ??
          (await tx.run.create({
            data: {
              workspaceId: session.workspaceId,
              botId: session.botId,
              sessionId: session.id,
              triggerMessageId: message.id,
              kind: input.kind,
            },
          }));
        const linked = await tx.message.update({ where: { id: message.id }, data: { runId: run.id } });
        await tx.session.update({ where: { id: session.id }, data: { lastMessageAt: message.createdAt } });
        const ahead = await tx.run.count({
          where: {
            botId: session.botId,
            id: { not: run.id },
            OR: [{ status: { in: [...ACTIVE_RUN_STATUSES] } }, { status: 'queued', createdAt: { lt: run.createdAt } }],
          },
        });
        return { message: linked, run, replayed: false, queuedBehindActive: ahead > 0 };
      });
    } catch (error) {
      // A retry, or two requests with the same nonce racing: answer with the first message and its run.
      if (isUniqueViolation(error)) {
        const again = await this.replay(input);
        if (again) return again;
      }
      throw error;
    }
  }

  private async replay(input: AcceptMessageInput): Promise<AcceptedMessage | null> {
    const message = await this.prisma.message.findUnique({
      where: { workspaceId_clientNonce: { workspaceId: input.session.workspaceId, clientNonce: input.clientNonce } },
    });
    if (!message) return null;
    if (message.sessionId !== input.session.id || message.role !== 'user') throw new NonceReusedError('clientNonce already used');
    const run = message.runId ? await this.prisma.run.findUnique({ where: { id: message.runId } }) : null;
    if (!run) throw new NonceReusedError('clientNonce already used');
    const ahead = await this.prisma.run.count({
      where: {
        botId: run.botId,
        id: { not: run.id },
        OR: [{ status: { in: [...ACTIVE_RUN_STATUSES] } }, { status: 'queued', createdAt: { lt: run.createdAt } }],
      },
    });
    return { message, run, replayed: true, queuedBehindActive: run.status === 'queued' && ahead > 0 };
  }
}
