import { Injectable } from '@nestjs/common';
import type { MessageView, PageQuery, PostMessageRequest, PostMessageResponse, SessionView } from '@lazyboy/contracts';
import { isSmallTalk } from '@lazyboy/agent';
import type { Session } from '../persistence/generated/client.js';
import { conflict, notFound } from '../common/api-error.js';
import type { Principal } from '../auth/principal.js';
import { BotsService } from '../bots/bots.service.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { RunExecutor } from '../runs/run-executor.service.js';
import { RunsService } from '../runs/runs.service.js';
import { toRunView } from '../runs/run-views.js';
import { NonceReusedError, SessionsRepository, type AcceptedMessage } from './sessions.repository.js';
import { toMessageView, toSessionView } from './message-views.js';

@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly bots: BotsService,
    private readonly runs: RunsService,
    private readonly realtime: RealtimePublisher,
    private readonly executor: RunExecutor,
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

  /**
   * A user message: stored with its run (or as the answer to the run parked on a question) in one
   * transaction, then the executors are woken. Greetings and small talk become chat runs: no tools, no
   * computer.
   */
  async postMessage(principal: Principal, sessionId: string, body: PostMessageRequest): Promise<PostMessageResponse> {
    const session = await this.visible(principal, sessionId);
    // With a free executor slot here, an idle agent's run is leased in the accepting statement itself.
    const slot = this.executor.reserveSlot();
    let accepted: AcceptedMessage;
    try {
      accepted = await this.sessions.acceptMessage({
        session,
        authorUserId: principal.userId,
        text: body.text,
        clientNonce: body.clientNonce,
        kind: isSmallTalk(body.text) ? 'chat' : 'general',
        directLease: slot ?? undefined,
      });
    } catch (error) {
      slot?.release();
      if (error instanceof NonceReusedError)
        throw conflict('nonce_reused', 'this clientNonce was already used for another message; choose a new one per message');
      throw error;
    }
    if (slot) {
      const leasedHere = !accepted.replayed && accepted.run.status === 'leased' && accepted.run.leaseOwner === slot.owner;
      if (leasedHere) slot.adopt(accepted.run.id);
      else slot.release();
    }
    const message = toMessageView(accepted.message);
    const run = toRunView(accepted.run);
    if (!accepted.replayed) {
      if (accepted.run.status === 'queued') await this.runs.queued();
      await this.realtime.publish([{ kind: 'session', id: session.id }], { type: 'message.created', message });
      await this.runs.publish(accepted.run);
    }
    return { message, run, queuedBehindActive: accepted.queuedBehindActive, replayed: accepted.replayed };
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
