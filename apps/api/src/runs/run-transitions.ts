import {
  EXECUTING_RUN_STATUSES,
  mayMoveRun,
  NEW_RUN_STATUS,
  PARKED_RUN_STATUSES,
  runStatusSchema,
  type ParkedRunStatus,
  type RunStatus,
} from '@lazyboy/contracts';
import { Prisma } from '../persistence/generated/client.js';
import type { RunLease } from './run-lease.js';

/**
 * One way a run's status changes: from any of `from` to `to`. Every status write (RunsRepository,
 * RunCreationRepository; test/docs/run-status-writes.spec.ts fails on any other) names one of these, and each is checked against libs/contracts' RUN_TRANSITIONS when this module loads,
 * so a write the table does not allow cannot even be started.
 */
export interface RunTransition<To extends RunStatus = RunStatus> {
  readonly from: readonly RunStatus[];
  readonly to: To;
}

function transition<To extends RunStatus>(from: readonly RunStatus[], to: To): RunTransition<To> {
  const refused = from.filter((status) => !mayMoveRun(status, to));
  if (refused.length > 0) throw new Error(`run status table: no way from ${refused.join(', ')} to ${to}`);
  return { from, to };
}

const ENDINGS = ['completed', 'blocked', 'failed', 'cancelled'] as const;
type Ending = (typeof ENDINGS)[number];

export const RUN_MOVES = {
  /** A run is born (apps/api/src/runs/run-creation.repository.ts): from nothing, so nothing to check. */
  born: transition([], NEW_RUN_STATUS),
  /** A new run of an idle agent, leased in the statement that creates it to a free executor slot of that replica. */
  leaseAtBirth: transition([NEW_RUN_STATUS], 'leased'),
  /** An executor claims a queued run, or one whose executor's lease expired. */
  lease: transition(['queued', ...EXECUTING_RUN_STATUSES], 'leased'),
  /** The executor starts, or shows its next step. */
  run: transition(EXECUTING_RUN_STATUSES, 'running'),
  /** The executor shuts down and hands the run back. */
  requeue: transition(EXECUTING_RUN_STATUSES, 'queued'),
  /** The run waits for a person: an answer, or the screen back. */
  park: Object.fromEntries(PARKED_RUN_STATUSES.map((status) => [status, transition(EXECUTING_RUN_STATUSES, status)])) as Record<
    ParkedRunStatus,
    RunTransition<ParkedRunStatus>
  >,
  /** The answer (or the hand-back) came: back in the queue with it. */
  resume: Object.fromEntries(PARKED_RUN_STATUSES.map((status) => [status, transition([status], 'queued')])) as Record<
    ParkedRunStatus,
    RunTransition<'queued'>
  >,
  /** The executor ends the run. */
  finish: Object.fromEntries(ENDINGS.map((status) => [status, transition(EXECUTING_RUN_STATUSES, status)])) as Record<
    Ending,
    RunTransition<Ending>
  >,
  /** A parked run waited longer than LAZYBOY_PARKED_RUN_HOURS: it ends, so its agent serves its other chats. */
  expire: transition(PARKED_RUN_STATUSES, 'blocked'),
  /** A person stops a run no executor holds: at once. (An executing one is flagged; its executor finishes it.) */
  cancelUnheld: transition(['queued', ...PARKED_RUN_STATUSES], 'cancelled'),
} as const;

export type FinalRunStatus = Ending;

/** `status IN ('a', 'b')` for SQL: the statuses are the enum's own words, so they are written as literals (plans stay as before). */
export function statusIn(statuses: readonly RunStatus[], column = 'status'): Prisma.Sql {
  const literals = statuses.map((status) => `'${runStatusSchema.parse(status)}'`).join(', ');
  return Prisma.raw(`${column} IN (${literals})`);
}

/**
 * The condition of every write an executor makes while it holds a run: the run is still this lease's
 * (same fence) and still executing. Written once; an expired lease taken by another executor (fence + 1)
 * or an ended run makes the write touch nothing.
 */
export function heldBy(lease: RunLease): Prisma.Sql {
  return Prisma.sql`id = ${lease.runId}::uuid AND "leaseFence" = ${lease.fence} AND ${EXECUTING}`;
}

// Every fenced write carries this: built once, not on each of an executor's several writes per model round.
const EXECUTING = statusIn(EXECUTING_RUN_STATUSES);

/** The same condition for Prisma's query builder. */
export function heldByWhere(lease: RunLease): Prisma.RunWhereInput {
  return { id: lease.runId, leaseFence: lease.fence, status: { in: [...EXECUTING_RUN_STATUSES] } };
}
