import { Injectable } from '@nestjs/common';
import type { MessageView, PageQuery, PostMessageRequest, PostMessageResponse, ChatView } from '@lazyboy/contracts';
import type { Chat } from '../persistence/generated/client.js';
import { notFound } from '../common/api-error.js';
import type { Principal } from '../auth/principal.js';
import { AgentsService } from '../agents/agents.service.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { RunCreation } from '../runs/run-creation.service.js';
import { RunsService } from '../runs/runs.service.js';
import { toRunView } from '../runs/run-views.js';
import { ChatsRepository } from './chats.repository.js';
import { toMessageView, toChatView } from './message-views.js';

@Injectable()
export class ChatsService {
  constructor(
    private readonly chats: ChatsRepository,
    private readonly agents: AgentsService,
    private readonly runs: RunsService,
    private readonly realtime: RealtimePublisher,
    private readonly creation: RunCreation,
  ) {}

  async create(principal: Principal, agentId: string, title: string | undefined): Promise<ChatView> {
    const agent = await this.agents.getForPrincipal(principal, agentId);
    return toChatView(await this.chats.create(agent, title ?? '', principal.userId));
  }

  async listForAgent(principal: Principal, agentId: string): Promise<ChatView[]> {
    const agent = await this.agents.getForPrincipal(principal, agentId);
    return (await this.chats.listForAgent(agent.id, 200)).map(toChatView);
  }

  async get(principal: Principal, chatId: string): Promise<ChatView> {
    return toChatView(await this.visible(principal, chatId));
  }

  async rename(principal: Principal, chatId: string, title: string): Promise<ChatView> {
    const chat = await this.visible(principal, chatId);
    return toChatView(await this.chats.rename(chat.id, title));
  }

  async delete(principal: Principal, chatId: string): Promise<void> {
    const chat = await this.visible(principal, chatId);
    await this.runs.stopChatRuns(chat.id);
    await this.chats.delete(chat.id);
  }

  async messages(
    principal: Principal,
    chatId: string,
    page: PageQuery,
  ): Promise<{ items: MessageView[]; nextBefore: string | null }> {
    const chat = await this.visible(principal, chatId);
    const newestFirst = await this.chats.messagesBefore(chat.id, page.before, page.limit + 1);
    const items = newestFirst.slice(0, page.limit);
    const more = newestFirst.length > page.limit;
    return { items: items.reverse().map(toMessageView), nextBefore: more ? (items[0]?.id ?? null) : null };
  }

  /** A user message: the runs module stores it with its run (or as the answer to the chat's parked run). */
  async postMessage(principal: Principal, chatId: string, body: PostMessageRequest): Promise<PostMessageResponse> {
    const chat = await this.visible(principal, chatId);
    const created = await this.creation.create({
      kind: 'message',
      chat,
      authorUserId: principal.userId,
      text: body.text,
      clientNonce: body.clientNonce,
    });
    return {
      message: toMessageView(created.message),
      run: toRunView(created.run),
      queuedBehindActive: created.queuedBehindActive,
      replayed: created.replayed,
    };
  }

  /** Empties the chat (its runs are stopped first); long-term memory is not touched. */
  async clear(principal: Principal, chatId: string): Promise<{ deleted: number }> {
    const chat = await this.visible(principal, chatId);
    await this.runs.stopChatRuns(chat.id);
    const deleted = await this.chats.clearMessages(chat.id);
    await this.realtime.publish([{ kind: 'chat', id: chat.id }], { type: 'messages.cleared', chatId: chat.id });
    return { deleted };
  }

  private async visible(principal: Principal, chatId: string): Promise<Chat> {
    const chat = await this.chats.visibleChat(principal, chatId);
    if (!chat) throw notFound('chat');
    return chat;
  }
}
