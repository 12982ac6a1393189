import { Injectable } from '@nestjs/common';
import type { MessageView, PageQuery, PostMessageRequest, PostMessageResponse, SessionView } from '@lazyboy/contracts';
import type { Session } from '../persistence/generated/client.js';
import { notFound } from '../common/api-error.js';
import type { Principal } from '../auth/principal.js';
import { BotsService } from '../bots/bots.service.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { RunCreation } from '../runs/run-creation.service.js';
import { RunsService } from '../runs/runs.service.js';
import { toRunView } from '../runs/run-views.js';
import { SessionsRepository } from './sessions.repository.js';
import { toMessageView, toSessionView } from './message-views.js';

@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly bots: BotsService,
    private readonly runs: RunsService,
    private readonly realtime: RealtimePublisher,
    private readonly creation: RunCreation,
  ) {}

  async create(principal: Principal, botId: string, title: string | undefined): Promise<SessionView> {
    const bot = await this.bots.getForPrincipal(principal, botId);
    return toSessionView(await this.sessions.create(bot, title ?? '', principal.userId));
  }

  async listForBot(principal: Principal, botId: string): Promise<SessionView[]> {
    const bot = await this.bots.getForPrincipal(principal, botId);
    return (await this.sessions.listForBot(bot.id, 200)).map(toSessionView);
  }

  async get(principal: Principal, sessionId: string): Promise<SessionView> {
    return toSessionView(await this.visible(principal, sessionId));
  }

  async rename(principal: Principal, sessionId: string, title: string): Promise<SessionView> {
    const session = await this.visible(principal, sessionId);
    return toSessionView(await this.sessions.rename(session.id, title));
  }

  async delete(principal: Principal, sessionId: string): Promise<void> {
    const session = await this.visible(principal, sessionId);
    await this.runs.stopSessionRuns(session.id);
    await this.sessions.delete(session.id);
  }

  async messages(
    principal: Principal,
    sessionId: string,
    page: PageQuery,
  ): Promise<{ items: MessageView[]; nextBefore: string | null }> {
    const session = await this.visible(principal, sessionId);
    const newestFirst = await this.sessions.messagesBefore(session.id, page.before, page.limit + 1);
    const items = newestFirst.slice(0, page.limit);
    const more = newestFirst.length > page.limit;
    return { items: items.reverse().map(toMessageView), nextBefore: more ? (items[0]?.id ?? null) : null };
  }

  /** A user message: the runs module stores it with its run (or as the answer to the chat's parked run). */
  async postMessage(principal: Principal, sessionId: string, body: PostMessageRequest): Promise<PostMessageResponse> {
    const session = await this.visible(principal, sessionId);
    const created = await this.creation.create({
      kind: 'message',
      session,
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
  async clear(principal: Principal, sessionId: string): Promise<{ deleted: number }> {
    const session = await this.visible(principal, sessionId);
    await this.runs.stopSessionRuns(session.id);
    const deleted = await this.sessions.clearMessages(session.id);
    await this.realtime.publish([{ kind: 'session', id: session.id }], { type: 'messages.cleared', sessionId: session.id });
    return { deleted };
  }

  private async visible(principal: Principal, sessionId: string): Promise<Session> {
    const session = await this.sessions.visibleSession(principal, sessionId);
    if (!session) throw notFound('session');
    return session;
  }
}
