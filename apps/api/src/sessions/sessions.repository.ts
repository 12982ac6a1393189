import { Injectable } from '@nestjs/common';
import { Prisma, type Bot, type Message, type Session } from '../persistence/generated/client.js';
import { PrismaService } from '../persistence/prisma.service.js';
import type { Principal } from '../auth/principal.js';
import { visibleWorkspaceSql } from '../tenancy/workspace-scope.js';

/** Chats and their messages. A person's message and its run are written by the runs module (RunCreation). */
@Injectable()
export class SessionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Plain SQL: every message POST starts here. */
  async visibleSession(principal: Principal, sessionId: string): Promise<Session | null> {
    const rows = await this.prisma.$queryRaw<Session[]>`
      SELECT s.* FROM "Session" s
      WHERE s.id = ${sessionId}::uuid AND ${visibleWorkspaceSql(principal, Prisma.sql`s."workspaceId"`)}`;
    return rows[0] ?? null;
  }

  async create(bot: Pick<Bot, 'id' | 'workspaceId'>, title: string, createdById: string): Promise<Session> {
    return this.prisma.session.create({ data: { workspaceId: bot.workspaceId, botId: bot.id, title, createdById } });
  }

  async listForBot(botId: string, limit: number): Promise<Session[]> {
    return this.prisma.session.findMany({ where: { botId }, orderBy: [{ lastMessageAt: 'desc' }, { id: 'desc' }], take: limit });
  }

  async rename(sessionId: string, title: string): Promise<Session> {
    return this.prisma.session.update({ where: { id: sessionId }, data: { title } });
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
}
