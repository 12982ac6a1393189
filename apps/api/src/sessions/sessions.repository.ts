import { Injectable } from '@nestjs/common';
import { ACTIVE_RUN_STATUSES, UNFINISHED_RUN_STATUSES, type RunKind } from '@lazyboy/contracts';
import type { HumanAnswer } from '@lazyboy/agent';
import { Prisma, type Bot, type Message, type Run, type Session } from '../persistence/generated/client.js';
import { isUniqueViolation, violatesUniqueIndex } from '../persistence/prisma-errors.js';
import { PrismaService } from '../persistence/prisma.service.js';
import type { Principal } from '../auth/principal.js';
import { visibleWorkspaceSql } from '../tenancy/workspace-scope.js';
import { ONE_EXECUTING_RUN_PER_AGENT, RunsRepository } from '../runs/runs.repository.js';
import { uuidv7 } from '../persistence/uuidv7.js';
import { messageContent } from './message-views.js';

/** A new run queues behind the agent's active run and behind its earlier queued ones. */
const AHEAD_STATUSES = [...UNFINISHED_RUN_STATUSES];

export interface AcceptMessageInput {
  session: Session;
  authorUserId: string;
  text: string;
  clientNonce: string;
  kind: RunKind;
  /**
   * An executor slot of this replica, free now: when the agent has nothing else to do, the new run is
   * leased to it in the same statement (no trip through the queue). Absent: the run is queued.
   */
  directLease?: { owner: string; leaseMs: number } | undefined;
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

  /**
   * Writes a user message and its work atomically: a new queued run, or the answer to a run of this chat
   * parked in waiting_input. A clientNonce seen before returns the first message and run.
   */
  async acceptMessage(input: AcceptMessageInput): Promise<AcceptedMessage> {
    // A retry is rare: the insert of its nonce fails (unique per workspace) and the first answer is read back.
    try {
      return (await this.queueRun(input)) ?? (await this.answerParked(input));
    } catch (error) {
      // Another replica leased a run of this agent at the same moment: this one queues behind it instead.
      if (input.directLease && violatesUniqueIndex(error, ONE_EXECUTING_RUN_PER_AGENT)) {
        return this.acceptMessage({ ...input, directLease: undefined });
      }
      // A retry, or two requests with the same nonce racing: answer with the first message and its run.
      if (isUniqueViolation(error)) {
        const again = await this.replay(input);
        if (again) return again;
      }
      throw error;
    }
  }

  /**
   * The common case in one plain-SQL statement (every message goes through here, and a compiled Prisma
   * transaction of six statements costs several times the CPU): the message, its run and the chat's
   * lastMessageAt. The run is leased at once to `directLease` when the agent has no other run active or
   * queued, else queued. Writes nothing and answers null when a run of this chat waits for an answer.
   * A run leased here starts at clock_timestamp(), as in RunsRepository.claimNext: never before the run it
   * found finished.
   */
  private async queueRun(input: AcceptMessageInput): Promise<AcceptedMessage | null> {
    const { session } = input;
    const owner = input.directLease?.owner ?? null;
    const leaseMs = input.directLease?.leaseMs ?? 0;
    const messageId = uuidv7();
    const runId = uuidv7();
    const content = messageContent(input.text);
    const rows = await this.prisma.$queryRaw<(Run & { queuedBehindActive: boolean })[]>`
      WITH parked AS (
        SELECT 1 FROM "Run"
        WHERE "botId" = ${session.botId}::uuid AND "sessionId" = ${session.id}::uuid AND status = 'waiting_input'
        LIMIT 1
      ), message AS (
        INSERT INTO "Message" (id, "workspaceId", "sessionId", role, content, "clientNonce", "authorUserId", "runId")
        SELECT ${messageId}::uuid, ${session.workspaceId}::uuid, ${session.id}::uuid, 'user', ${JSON.stringify(content)}::jsonb,
               ${input.clientNonce}, ${input.authorUserId}::uuid, ${runId}::uuid
        WHERE NOT EXISTS (SELECT 1 FROM parked)
        RETURNING "createdAt"
      ), ahead AS (
        SELECT EXISTS (
          SELECT 1 FROM "Run" o WHERE o."botId" = ${session.botId}::uuid AND o.status = ANY(${AHEAD_STATUSES}::"RunStatus"[])
        ) AS busy
      ), idle AS (
        SELECT ${owner}::text IS NOT NULL AND NOT ahead.busy AS direct, ahead.busy FROM ahead
      ), run AS (
        INSERT INTO "Run" (id, "workspaceId", "botId", "sessionId", "triggerMessageId", kind, status, "leaseOwner",
                           "leaseFence", "leaseExpiresAt", "startedAt", "createdAt", "updatedAt")
        SELECT ${runId}::uuid, ${session.workspaceId}::uuid, ${session.botId}::uuid, ${session.id}::uuid, ${messageId}::uuid,
               ${input.kind}::"RunKind",
               CASE WHEN idle.direct THEN 'leased' ELSE 'queued' END::"RunStatus",
               CASE WHEN idle.direct THEN ${owner}::text END,
               CASE WHEN idle.direct THEN 1 ELSE 0 END,
               CASE WHEN idle.direct THEN m."createdAt" + ${leaseMs} * interval '1 millisecond' END,
               CASE WHEN idle.direct THEN clock_timestamp() END,
               m."createdAt", m."createdAt"
        FROM message m, idle
        RETURNING *
      ), touched AS (
        UPDATE "Session" SET "lastMessageAt" = m."createdAt", "updatedAt" = now()
        FROM message m WHERE "Session".id = ${session.id}::uuid
      )
      SELECT run.*, idle.busy AS "queuedBehindActive"
      FROM run, idle`;
    const row = rows[0];
    if (!row) return null;
    const { queuedBehindActive, ...run } = row;
    const message: Message = {
      id: messageId,
      workspaceId: session.workspaceId,
      sessionId: session.id,
      role: 'user',
      content: content as unknown as Prisma.JsonValue,
      clientNonce: input.clientNonce,
      authorUserId: input.authorUserId,
      botId: null,
      runId,
      createdAt: run.createdAt,
    };
    return { message, run, replayed: false, queuedBehindActive };
  }

  /** The message answers the run of this chat parked in waiting_input (or, if that moved on meanwhile, queues a run). */
  private async answerParked(input: AcceptMessageInput): Promise<AcceptedMessage> {
    return this.prisma.$transaction(async (tx) => {
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
      return { message: linked, run, replayed: false, queuedBehindActive: await this.isBehind(run, tx) };
    });
  }

  private async replay(input: AcceptMessageInput): Promise<AcceptedMessage | null> {
    const message = await this.prisma.message.findUnique({
      where: { workspaceId_clientNonce: { workspaceId: input.session.workspaceId, clientNonce: input.clientNonce } },
    });
    if (!message) return null;
    if (message.sessionId !== input.session.id || message.role !== 'user') throw new NonceReusedError('clientNonce already used');
    const run = message.runId ? await this.prisma.run.findUnique({ where: { id: message.runId } }) : null;
    if (!run) throw new NonceReusedError('clientNonce already used');
    return { message, run, replayed: true, queuedBehindActive: run.status === 'queued' && (await this.isBehind(run)) };
  }

  /** Another run of the agent is active, or queued before this one. */
  private async isBehind(run: Run, client: Prisma.TransactionClient = this.prisma): Promise<boolean> {
    const ahead = await client.run.count({
      where: {
        botId: run.botId,
        id: { not: run.id },
        OR: [{ status: { in: [...ACTIVE_RUN_STATUSES] } }, { status: 'queued', createdAt: { lt: run.createdAt } }],
      },
    });
    return ahead > 0;
  }
}
