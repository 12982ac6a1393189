import { Injectable } from '@nestjs/common';
import {
  ACTIVE_RUN_STATUSES,
  EXECUTING_RUN_STATUSES,
  UNFINISHED_RUN_STATUSES,
  type BusyStep,
  type MessageNotice,
  type ParkedRunStatus,
  type RunErrorCode,
  type RunStatus,
} from '@lazyboy/contracts';
import type { HumanAnswer } from '@lazyboy/agent';
import { Prisma, type Agent, type Message, type Run, type Workspace } from '../persistence/generated/client.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { uuidv7 } from '../persistence/uuidv7.js';
import { messageContent } from '../chats/message-views.js';
import { StaleLeaseError, type RunLease } from './run-lease.js';
import { readRunState, type StoredRunResult, type StoredRunState } from './run-state.js';
import { heldBy, heldByWhere, RUN_MOVES, statusIn, type FinalRunStatus, type RunTransition } from './run-transitions.js';
import type { Principal } from '../auth/principal.js';
import { visibleWorkspaces } from '../tenancy/workspace-scope.js';

/** A run whose executor's lease expired is leased again (by RUN_MOVES.lease). */
const LEASE_EXPIRED_IN = statusIn(
  RUN_MOVES.lease.from.filter((status) => status !== 'queued'),
  'r.status',
);
/** Another run of the agent that holds it (claimNext leases none of an agent that has one). */
const OTHER_ACTIVE_IN = statusIn(ACTIVE_RUN_STATUSES, 'o.status');
/** What the parked-run sweep may end. */
const PARKED_IN = statusIn(RUN_MOVES.expire.from);

/**
 * The partial unique index (prisma/migrations) that lets an agent have one active run only: two executors
 * or accepts racing for the same agent get a unique violation instead of a second run.
 */
export const ONE_EXECUTING_RUN_PER_AGENT = 'Run_one_executing_per_agent';

/** A run with what the executor reads of its agent, workspace and trigger message. */
export interface RunContext extends Run {
  agent: Pick<Agent, 'id' | 'name' | 'instructions' | 'modelSettings' | 'modelApiKeyCipher'>;
  workspace: Pick<Workspace, 'id' | 'modelSettings' | 'modelApiKeyCipher'>;
  triggerMessage: Pick<Message, 'id' | 'createdAt' | 'content'> | null;
}

interface ExecutionContextColumns {
  agentName: string;
  agentInstructions: string;
  agentModelSettings: Prisma.JsonValue;
  agentModelApiKeyCipher: Agent['modelApiKeyCipher'];
  workspaceModelSettings: Prisma.JsonValue;
  workspaceModelApiKeyCipher: Workspace['modelApiKeyCipher'];
  triggerId: string | null;
  triggerCreatedAt: Date | null;
  triggerContent: Prisma.JsonValue;
}
const json = (value: unknown) => value as Prisma.InputJsonValue;

@Injectable()
export class RunsRepository {
  constructor(private readonly prisma: PrismaService) {}

  // --- the queue ----------------------------------------------------------------------------

  /**
   * Leases up to `limit` of the oldest runnable runs (at most one per agent) and returns their ids: a queued one, or an executing one whose lease expired (its executor
   * died), never one of an agent that already has another active run, and per agent in arrival order.
   * One statement: SKIP LOCKED lets executors claim side by side without waiting on each other.
   * `startedAt` is the clock when the row is written, not now() (the statement's start): the run before it
   * may have finished after the statement began and before its snapshot was taken, and a run must never
   * seem to start before the one it waited for ended.
   */
  async claimNext(owner: string, leaseMs: number, limit = 1): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      WITH candidate AS (
        SELECT r.id FROM "Run" r
        WHERE (r.status = 'queued' OR (${LEASE_EXPIRED_IN} AND r."leaseExpiresAt" < now()))
          AND NOT EXISTS (
            SELECT 1 FROM "Run" o
            WHERE o."agentId" = r."agentId" AND o.id <> r.id
              AND ${OTHER_ACTIVE_IN})
          AND NOT EXISTS (
            SELECT 1 FROM "Run" e
            WHERE e."agentId" = r."agentId" AND e.status = 'queued' AND (e."createdAt", e.id) < (r."createdAt", r.id))
        ORDER BY r."createdAt", r.id
        LIMIT ${limit}
        FOR UPDATE OF r SKIP LOCKED
      )
      UPDATE "Run" SET
        status = ${RUN_MOVES.lease.to}::"RunStatus",
        "leaseOwner" = ${owner},
        "leaseFence" = "Run"."leaseFence" + 1,
        "leaseExpiresAt" = now() + ${leaseMs} * interval '1 millisecond',
        "startedAt" = coalesce("Run"."startedAt", clock_timestamp()),
        "updatedAt" = now()
      FROM candidate WHERE "Run".id = candidate.id
      RETURNING "Run".id`;
    return rows.map((r) => r.id);
  }

  /** Extends the lease; false when it is no longer ours. Also says whether someone asked to stop the run. */
  async renew(lease: RunLease, leaseMs: number): Promise<{ held: boolean; cancelRequested: boolean }> {
    const rows = await this.prisma.$queryRaw<{ cancelRequestedAt: Date | null }[]>`
      UPDATE "Run" SET "leaseExpiresAt" = now() + ${leaseMs} * interval '1 millisecond'
      WHERE ${heldBy(lease)}
      RETURNING "cancelRequestedAt"`;
    const row = rows[0];
    return { held: row !== undefined, cancelRequested: row !== undefined && row.cancelRequestedAt !== null };
  }

  /** A fenced status change of the run the lease holds (`move` from RUN_MOVES), with the other columns it sets. */
  private async moveHeld(
    lease: RunLease,
    move: RunTransition,
    data: Omit<Prisma.RunUpdateManyMutationInput, 'status'>,
  ): Promise<void> {
    const { count } = await this.prisma.run.updateMany({
      where: { AND: [heldByWhere(lease), { status: { in: [...move.from] } }] },
      data: { ...data, status: move.to },
    });
    if (count !== 1) throw new StaleLeaseError(lease.runId);
  }

  /** Hands the run back to the queue (its executor is shutting down); another executor resumes it. */
  async requeue(lease: RunLease): Promise<void> {
    await this.moveHeld(lease, RUN_MOVES.requeue, { leaseOwner: null, leaseExpiresAt: null, busyStep: Prisma.DbNull });
  }

  // The executor's frequent writes below are plain SQL: each runs several times per model round, and a
  // statement through Prisma's query compiler costs about four times the CPU (bench/queue).

  /** Saves the agent's checkpoint (and renews the lease; `busyStep` when it changed). */
  async saveState(lease: RunLease, state: StoredRunState, leaseMs: number, busyStep?: BusyStep): Promise<void> {
    const count = await this.prisma.$executeRaw`
      UPDATE "Run" SET
        checkpoint = ${JSON.stringify(state)}::jsonb,
        "roundsUsed" = ${state.agent.roundsUsed},
        "leaseExpiresAt" = now() + ${leaseMs} * interval '1 millisecond',
        "busyStep" = coalesce(${busyStep ? JSON.stringify(busyStep) : null}::jsonb, "busyStep"),
        "updatedAt" = now()
      WHERE ${heldBy(lease)}`;
    if (count !== 1) throw new StaleLeaseError(lease.runId);
  }

  /** The run starts executing (or shows what it does now): status running and its busy step. */
  async setRunning(lease: RunLease, busyStep: BusyStep, leaseMs: number): Promise<void> {
    const count = await this.prisma.$executeRaw`
      UPDATE "Run" SET
        status = ${RUN_MOVES.run.to}::"RunStatus",
        "busyStep" = ${JSON.stringify(busyStep)}::jsonb,
        "leaseExpiresAt" = now() + ${leaseMs} * interval '1 millisecond',
        "updatedAt" = now()
      WHERE ${heldBy(lease)}`;
    if (count !== 1) throw new StaleLeaseError(lease.runId);
  }

  /** Ends the run (final status) and gives up the lease. Plain SQL: every run ends here. */
  async finish(
    lease: RunLease,
    outcome: {
      status: FinalRunStatus;
      result?: StoredRunResult;
      errorCode?: RunErrorCode;
      errorMessage?: string;
      state?: StoredRunState;
    },
  ): Promise<Run> {
    const jsonOrNull = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
    const rows = await this.prisma.$queryRaw<Run[]>`
      UPDATE "Run" SET
        status = ${RUN_MOVES.finish[outcome.status].to}::"RunStatus",
        "busyStep" = NULL,
        "leaseOwner" = NULL,
        "leaseExpiresAt" = NULL,
        "finishedAt" = now(),
        result = coalesce(${jsonOrNull(outcome.result)}::jsonb, result),
        "errorCode" = coalesce(${outcome.errorCode ?? null}::text, "errorCode"),
        "errorMessage" = CASE WHEN ${outcome.errorCode ?? null}::text IS NULL THEN "errorMessage" ELSE ${outcome.errorMessage ?? null}::text END,
        checkpoint = coalesce(${jsonOrNull(outcome.state)}::jsonb, checkpoint),
        "updatedAt" = now()
      WHERE ${heldBy(lease)}
      RETURNING *`;
    const run = rows[0];
    if (!run) throw new StaleLeaseError(lease.runId);
    return run;
  }

  /** Parks the run until an answer or a release; the lease is given up meanwhile. */
  async park(lease: RunLease, status: ParkedRunStatus, state: StoredRunState, result: StoredRunResult): Promise<Run> {
    await this.moveHeld(lease, RUN_MOVES.park[status], {
      parkedAt: new Date(),
      busyStep: Prisma.DbNull,
      leaseOwner: null,
      leaseExpiresAt: null,
      checkpoint: json(state),
      roundsUsed: state.agent.roundsUsed,
      result: json(result),
    });
    return this.prisma.run.findUniqueOrThrow({ where: { id: lease.runId } });
  }

  /** Puts a parked run back in the queue with the answer it waited for; null when it was not parked so. */
  async resume(
    runId: string,
    from: ParkedRunStatus,
    answer: HumanAnswer,
    tx: Prisma.TransactionClient = this.prisma,
  ): Promise<Run | null> {
    const run = await tx.run.findUnique({ where: { id: runId } });
    const state = readRunState(run?.checkpoint);
    if (!run || run.status !== from || !state) return null;
    const { count } = await tx.run.updateMany({
      where: { id: runId, status: { in: [...RUN_MOVES.resume[from].from] }, updatedAt: run.updatedAt },
      data: {
        status: RUN_MOVES.resume[from].to,
        parkedAt: null,
        checkpoint: json({ ...state, answer }),
        busyStep: Prisma.DbNull,
      },
    });
    return count === 1 ? tx.run.findUnique({ where: { id: runId } }) : null;
  }

  /**
   * Ends the oldest run parked longer than `maxParkedMs` as blocked (`waited_too_long`) and, in the same
   * transaction, writes the message its chat shows for it; null when none has waited that long. Row locks
   * with SKIP LOCKED: replicas sweeping side by side each end a run once, and an answer arriving meanwhile
   * either resumes the run first or finds it ended.
   */
  async expireOneParked(
    maxParkedMs: number,
    message: { text: string; notice: MessageNotice },
  ): Promise<{ run: Run; message: Message | null } | null> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Run[]>`
        UPDATE "Run" SET
          status = ${RUN_MOVES.expire.to}::"RunStatus",
          "errorCode" = ${message.notice.code},
          "errorMessage" = ${message.text},
          "parkedAt" = NULL,
          "busyStep" = NULL,
          "finishedAt" = now(),
          "updatedAt" = now()
        WHERE id = (
          SELECT id FROM "Run"
          WHERE ${PARKED_IN} AND "parkedAt" < now() - ${maxParkedMs} * interval '1 millisecond'
          ORDER BY "parkedAt"
          LIMIT 1
          FOR UPDATE SKIP LOCKED)
        RETURNING *`;
      const run = rows[0];
      if (!run) return null;
      if (!run.chatId) return { run, message: null };
      const written = await tx.message.create({
        data: {
          id: uuidv7(),
          workspaceId: run.workspaceId,
          chatId: run.chatId,
          role: 'assistant',
          content: json(messageContent(message.text, false, message.notice)),
          agentId: run.agentId,
          runId: run.id,
        },
      });
      await tx.chat.update({ where: { id: run.chatId }, data: { lastMessageAt: written.createdAt } });
      return { run, message: written };
    });
  }

  // --- stop ---------------------------------------------------------------------------------

  /**
   * Stops a run: one that no executor holds (queued, parked) is cancelled at once; an executing one is
   * flagged, and its executor stops at the next safe boundary.
   */
  async requestCancel(runId: string): Promise<{ run: Run; changed: boolean } | null> {
    const now = new Date();
    const idle = await this.prisma.run.updateMany({
      where: { id: runId, status: { in: [...RUN_MOVES.cancelUnheld.from] } },
      data: {
        status: RUN_MOVES.cancelUnheld.to,
        cancelRequestedAt: now,
        finishedAt: now,
        busyStep: Prisma.DbNull,
        leaseOwner: null,
        leaseExpiresAt: null,
      },
    });
    const executing = await this.prisma.run.updateMany({
      where: { id: runId, status: { in: [...EXECUTING_RUN_STATUSES] }, cancelRequestedAt: null },
      data: { cancelRequestedAt: now },
    });
    const run = await this.prisma.run.findUnique({ where: { id: runId } });
    return run ? { run, changed: idle.count + executing.count > 0 } : null;
  }

  // --- reads --------------------------------------------------------------------------------

  async findVisible(principal: Principal, runId: string): Promise<Run | null> {
    return this.prisma.run.findFirst({ where: { id: runId, workspace: visibleWorkspaces(principal) } });
  }

  async activeRunOfAgent(agentId: string, statuses: readonly RunStatus[] = ACTIVE_RUN_STATUSES): Promise<Run | null> {
    return this.prisma.run.findFirst({ where: { agentId, status: { in: [...statuses] } }, orderBy: { createdAt: 'asc' } });
  }

  async activeInWorkspace(workspaceId: string): Promise<Run[]> {
    return this.prisma.run.findMany({
      where: { workspaceId, status: { in: [...UNFINISHED_RUN_STATUSES] } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: 500,
    });
  }

  async activeRunsOfChat(chatId: string): Promise<Run[]> {
    return this.prisma.run.findMany({ where: { chatId, status: { in: [...UNFINISHED_RUN_STATUSES] } } });
  }

  /**
   * Everything the executor needs to start a run, in one plain-SQL query (Prisma would run one query per
   * relation, each compiled anew).
   */
  async executionContext(runId: string): Promise<RunContext | null> {
    const rows = await this.prisma.$queryRaw<(Run & ExecutionContextColumns)[]>`
      SELECT r.*,
             b.name AS "agentName", b.instructions AS "agentInstructions", b."modelSettings" AS "agentModelSettings",
             b."modelApiKeyCipher" AS "agentModelApiKeyCipher", w."modelSettings" AS "workspaceModelSettings",
             w."modelApiKeyCipher" AS "workspaceModelApiKeyCipher",
             m.id AS "triggerId", m."createdAt" AS "triggerCreatedAt", m.content AS "triggerContent"
      FROM "Run" r
      JOIN "Agent" b ON b.id = r."agentId"
      JOIN "Workspace" w ON w.id = r."workspaceId"
      LEFT JOIN "Message" m ON m.id = r."triggerMessageId"
      WHERE r.id = ${runId}::uuid`;
    const row = rows[0];
    if (!row) return null;
    const {
      agentName,
      agentInstructions,
      agentModelSettings,
      agentModelApiKeyCipher,
      workspaceModelSettings,
      workspaceModelApiKeyCipher,
      triggerId,
      triggerCreatedAt,
      triggerContent,
      ...run
    } = row;
    return {
      ...run,
      agent: {
        id: run.agentId,
        name: agentName,
        instructions: agentInstructions,
        modelSettings: agentModelSettings,
        modelApiKeyCipher: agentModelApiKeyCipher,
      },
      workspace: {
        id: run.workspaceId,
        modelSettings: workspaceModelSettings,
        modelApiKeyCipher: workspaceModelApiKeyCipher,
      },
      triggerMessage:
        triggerId !== null && triggerCreatedAt !== null
          ? { id: triggerId, createdAt: triggerCreatedAt, content: triggerContent }
          : null,
    };
  }

  async events(runId: string, afterSeq: number, limit: number) {
    return this.prisma.runEvent.findMany({ where: { runId, seq: { gt: afterSeq } }, orderBy: { seq: 'asc' }, take: limit });
  }

  /** Plain SQL: every run asks this as it starts. */
  async lastEventSeq(runId: string): Promise<number> {
    const rows = await this.prisma.$queryRaw<{ seq: number | null }[]>`
      SELECT max(seq) AS seq FROM "RunEvent" WHERE "runId" = ${runId}::uuid`;
    return rows[0]?.seq ?? 0;
  }

  /** Stores events in one statement that inserts nothing once the lease is no longer ours. */
  async appendEvents(
    lease: RunLease,
    workspaceId: string,
    events: { seq: number; type: string; payload: unknown }[],
  ): Promise<void> {
    if (events.length === 0) return;
    const count = await this.prisma.$executeRaw`
      INSERT INTO "RunEvent" ("runId", "workspaceId", seq, type, payload)
      SELECT ${lease.runId}::uuid, ${workspaceId}::uuid, e.seq, e.type, e.payload
      FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS e(seq int, type text, payload jsonb)
      WHERE EXISTS (
        SELECT 1 FROM "Run"
        WHERE ${heldBy(lease)})`;
    if (count === 0) throw new StaleLeaseError(lease.runId);
  }
}
