import { Injectable } from '@nestjs/common';
import { ACTIVE_RUN_STATUSES, UNFINISHED_RUN_STATUSES, type RunKind } from '@lazyboy/contracts';
import type { HumanAnswer } from '@lazyboy/agent';
import { Prisma, type Message, type Run } from '../persistence/generated/client.js';
import { isUniqueViolation, violatesUniqueIndex } from '../persistence/prisma-errors.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { uuidv7 } from '../persistence/uuidv7.js';
import { messageContent } from '../chats/message-views.js';
import { NonceReusedError, type MessageRun, type MessageRunSource } from './run-sources.js';
import { RUN_MOVES } from './run-transitions.js';
import { ONE_EXECUTING_RUN_PER_AGENT, RunsRepository } from './runs.repository.js';

/** A new run queues behind the agent's active run and behind its earlier queued ones. */
const AHEAD_STATUSES = [...UNFINISHED_RUN_STATUSES];

/**
 * An executor slot of this replica, free now: when the agent has nothing else to do, the new run is leased
 * to it in the same statement (no trip through the queue).
 */
export interface DirectLease {
  owner: string;
  leaseMs: number;
}

/** Where runs are born: each source's rows written in one transaction with the run. */
@Injectable()
export class RunCreationRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly runs: RunsRepository,
  ) {}

  /**
   * Writes a user message and its work atomically: a new run (queued, or leased at once to `directLease`),
   * or the answer to a run of this chat parked in waiting_input. A clientNonce seen before returns the first
   * message and run.
   */
  async fromMessage(source: MessageRunSource, kind: RunKind, directLease?: DirectLease): Promise<MessageRun> {
    // A retry is rare: the insert of its nonce fails (unique per workspace) and the first answer is read back.
    try {
      return (await this.queueRun(source, kind, directLease)) ?? (await this.answerParked(source, kind));
    } catch (error) {
      // Another replica leased a run of this agent at the same moment: this one queues behind it instead.
      if (directLease && violatesUniqueIndex(error, ONE_EXECUTING_RUN_PER_AGENT)) return this.fromMessage(source, kind);
      // A retry, or two requests with the same nonce racing: answer with the first message and its run.
      if (isUniqueViolation(error)) {
        const again = await this.replay(source);
        if (again) return again;
      }
      throw error;
    }
  }

  /**
   * The common case in one plain-SQL statement (every message goes through here, and a compiled Prisma
   * transaction of six statements costs several times the CPU): the message, its run and the chat's
   * lastMessageAt. The run is born queued, or leased at once (RUN_MOVES.leaseAtBirth, fence 1) when the agent has
   * no other run active or queued. Writes nothing and answers null when a run of this chat waits for an
   * answer. A run leased here starts at clock_timestamp(), as in RunsRepository.claimNext: never before the
   * run it found finished.
   */
  private async queueRun(source: MessageRunSource, kind: RunKind, directLease?: DirectLease): Promise<MessageRun | null> {
    const { chat } = source;
    const owner = directLease?.owner ?? null;
    const leaseMs = directLease?.leaseMs ?? 0;
    const messageId = uuidv7();
    const runId = uuidv7();
    const content = messageContent(source.text);
    const rows = await this.prisma.$queryRaw<(Run & { queuedBehindActive: boolean })[]>`
      WITH parked AS (
        SELECT 1 FROM "Run"
        WHERE "agentId" = ${chat.agentId}::uuid AND "chatId" = ${chat.id}::uuid AND status = 'waiting_input'
        LIMIT 1
      ), message AS (
        INSERT INTO "Message" (id, "workspaceId", "chatId", role, content, "clientNonce", "authorUserId", "runId")
        SELECT ${messageId}::uuid, ${chat.workspaceId}::uuid, ${chat.id}::uuid, 'user', ${JSON.stringify(content)}::jsonb,
               ${source.clientNonce}, ${source.authorUserId}::uuid, ${runId}::uuid
        WHERE NOT EXISTS (SELECT 1 FROM parked)
        RETURNING "createdAt"
      ), ahead AS (
        SELECT EXISTS (
          SELECT 1 FROM "Run" o WHERE o."agentId" = ${chat.agentId}::uuid AND o.status = ANY(${AHEAD_STATUSES}::"RunStatus"[])
        ) AS busy
      ), idle AS (
        SELECT ${owner}::text IS NOT NULL AND NOT ahead.busy AS direct, ahead.busy FROM ahead
      ), run AS (
        INSERT INTO "Run" (id, "workspaceId", "agentId", "chatId", "triggerMessageId", kind, status, "leaseOwner",
                           "leaseFence", "leaseExpiresAt", "startedAt", "createdAt", "updatedAt")
        SELECT ${runId}::uuid, ${chat.workspaceId}::uuid, ${chat.agentId}::uuid, ${chat.id}::uuid, ${messageId}::uuid,
               ${kind}::"RunKind",
               (CASE WHEN idle.direct THEN ${RUN_MOVES.leaseAtBirth.to}::text ELSE ${RUN_MOVES.born.to}::text END)::"RunStatus",
               CASE WHEN idle.direct THEN ${owner}::text END,
               CASE WHEN idle.direct THEN 1 ELSE 0 END,
               CASE WHEN idle.direct THEN m."createdAt" + ${leaseMs} * interval '1 millisecond' END,
               CASE WHEN idle.direct THEN clock_timestamp() END,
               m."createdAt", m."createdAt"
        FROM message m, idle
        RETURNING *
      ), touched AS (
        UPDATE "Chat" SET "lastMessageAt" = m."createdAt", "updatedAt" = now()
        FROM message m WHERE "Chat".id = ${chat.id}::uuid
      )
      SELECT run.*, idle.busy AS "queuedBehindActive"
      FROM run, idle`;
    const row = rows[0];
    if (!row) return null;
    const { queuedBehindActive, ...run } = row;
    const message: Message = {
      id: messageId,
      workspaceId: chat.workspaceId,
      chatId: chat.id,
      role: 'user',
      content: content as unknown as Prisma.JsonValue,
      clientNonce: source.clientNonce,
      authorUserId: source.authorUserId,
      agentId: null,
      runId,
      createdAt: run.createdAt,
    };
    return { message, run, replayed: false, queuedBehindActive };
  }

  /** The message answers the run of this chat parked in waiting_input (or, if that moved on meanwhile, queues a run). */
  private async answerParked(source: MessageRunSource, kind: RunKind): Promise<MessageRun> {
    return this.prisma.$transaction(async (tx) => {
      const { chat } = source;
      const message = await tx.message.create({
        data: {
          workspaceId: chat.workspaceId,
          chatId: chat.id,
          role: 'user',
          content: messageContent(source.text) as unknown as Prisma.InputJsonValue,
          clientNonce: source.clientNonce,
          authorUserId: source.authorUserId,
        },
      });
      const parked = await tx.run.findFirst({
        where: { agentId: chat.agentId, chatId: chat.id, status: 'waiting_input' },
      });
      const answer: HumanAnswer = { kind: 'answer', text: source.text };
      const resumed = parked ? await this.runs.resume(parked.id, 'waiting_input', answer, tx) : null;
      const run =
        resumed ??
        (await tx.run.create({
          data: {
            workspaceId: chat.workspaceId,
            agentId: chat.agentId,
            chatId: chat.id,
            triggerMessageId: message.id,
            kind,
            status: RUN_MOVES.born.to,
          },
        }));
      const linked = await tx.message.update({ where: { id: message.id }, data: { runId: run.id } });
      await tx.chat.update({ where: { id: chat.id }, data: { lastMessageAt: message.createdAt } });
      return { message: linked, run, replayed: false, queuedBehindActive: await this.isBehind(run, tx) };
    });
  }

  private async replay(source: MessageRunSource): Promise<MessageRun | null> {
    const message = await this.prisma.message.findUnique({
      where: { workspaceId_clientNonce: { workspaceId: source.chat.workspaceId, clientNonce: source.clientNonce } },
    });
    if (!message) return null;
    if (message.chatId !== source.chat.id || message.role !== 'user') throw new NonceReusedError('clientNonce already used');
    const run = message.runId ? await this.prisma.run.findUnique({ where: { id: message.runId } }) : null;
    if (!run) throw new NonceReusedError('clientNonce already used');
    return { message, run, replayed: true, queuedBehindActive: run.status === 'queued' && (await this.isBehind(run)) };
  }

  /** Another run of the agent is active, or queued before this one. */
  private async isBehind(run: Run, client: Prisma.TransactionClient = this.prisma): Promise<boolean> {
    const ahead = await client.run.count({
      where: {
        agentId: run.agentId,
        id: { not: run.id },
        OR: [{ status: { in: [...ACTIVE_RUN_STATUSES] } }, { status: 'queued', createdAt: { lt: run.createdAt } }],
      },
    });
    return ahead > 0;
  }
}
