import { Injectable } from '@nestjs/common';
import { Prisma, type Agent, type Message, type Chat } from '../persistence/generated/client.js';
import { PrismaService } from '../persistence/prisma.service.js';
import type { Principal } from '../auth/principal.js';
import { visibleWorkspaceSql } from '../tenancy/workspace-scope.js';

/** Chats and their messages. A person's message and its run are written by the runs module (RunCreation). */
@Injectable()
export class ChatsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Plain SQL: every message POST starts here. */
  async visibleChat(principal: Principal, chatId: string): Promise<Chat | null> {
    const rows = await this.prisma.$queryRaw<Chat[]>`
      SELECT s.* FROM "Chat" s
      WHERE s.id = ${chatId}::uuid AND ${visibleWorkspaceSql(principal, Prisma.sql`s."workspaceId"`)}`;
    return rows[0] ?? null;
  }

  async create(agent: Pick<Agent, 'id' | 'workspaceId'>, title: string, createdById: string): Promise<Chat> {
    return this.prisma.chat.create({ data: { workspaceId: agent.workspaceId, agentId: agent.id, title, createdById } });
  }

  async listForAgent(agentId: string, limit: number): Promise<Chat[]> {
    return this.prisma.chat.findMany({ where: { agentId }, orderBy: [{ lastMessageAt: 'desc' }, { id: 'desc' }], take: limit });
  }

  async rename(chatId: string, title: string): Promise<Chat> {
    return this.prisma.chat.update({ where: { id: chatId }, data: { title } });
  }

  async delete(chatId: string): Promise<void> {
    await this.prisma.chat.delete({ where: { id: chatId } });
  }

  /** A page of messages, newest first, strictly older than `before`. */
  async messagesBefore(chatId: string, before: string | undefined, limit: number): Promise<Message[]> {
    const cursor = before ? await this.prisma.message.findFirst({ where: { id: before, chatId } }) : null;
    return this.prisma.message.findMany({
      where: {
        chatId,
        ...(cursor
          ? { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] }
          : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
    });
  }

  async clearMessages(chatId: string): Promise<number> {
    const { count } = await this.prisma.message.deleteMany({ where: { chatId } });
    return count;
  }
}
