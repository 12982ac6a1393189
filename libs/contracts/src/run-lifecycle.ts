// A run's life as one table: every status it can be in and where it may go from each. The groups the rest
// of the product reasons with (final, executing, parked, holding its agent) are derived from it, and the
// API's run writes name the transition they make (apps/api/src/runs/run-transitions.ts), checked here.
import { z } from 'zod';

export const runStatusSchema = z.enum([
  'queued',
  'leased',
  'running',
  'waiting_takeover',
  'waiting_input',
  'completed',
  'blocked',
  'failed',
  'cancelled',
]);
export type RunStatus = z.infer<typeof runStatusSchema>;

const ENDINGS = ['completed', 'blocked', 'failed', 'cancelled'] as const satisfies readonly RunStatus[];

/** Every run is born queued (one leased at once to a free executor is born, then leased: both in the table). */
export const NEW_RUN_STATUS = 'queued' as const satisfies RunStatus;

/**
 * Where a run may go from each status:
 * - queued: an executor leases it, or a person stops it.
 * - leased / running (an executor holds the lease): it runs, goes back to the queue (its executor shuts
 *   down), parks for an answer or a person's takeover, or ends; an expired lease is taken by another
 *   executor (leased again, with a higher fence).
 * - waiting_input / waiting_takeover (parked, no executor): the answer or the hand-back queues it again; a
 *   person stops it; it ends as blocked when it waited too long.
 * - completed, blocked, failed, cancelled: over, never to change.
 */
export const RUN_TRANSITIONS = {
  queued: ['leased', 'cancelled'],
  leased: ['leased', 'running', 'queued', 'waiting_input', 'waiting_takeover', ...ENDINGS],
  running: ['leased', 'running', 'queued', 'waiting_input', 'waiting_takeover', ...ENDINGS],
  waiting_input: ['queued', 'blocked', 'cancelled'],
  waiting_takeover: ['queued', 'blocked', 'cancelled'],
  completed: [],
  blocked: [],
  failed: [],
  cancelled: [],
} as const satisfies Record<RunStatus, readonly RunStatus[]>;

const STATUSES = runStatusSchema.options;

export function mayMoveRun(from: RunStatus, to: RunStatus): boolean {
  return (RUN_TRANSITIONS[from] as readonly RunStatus[]).includes(to);
}

/** The statuses a run may reach `to` from. */
export function runStatusesLeadingTo(to: RunStatus): RunStatus[] {
  return STATUSES.filter((from) => mayMoveRun(from, to));
}

/** A run in one of these is over and never changes again (no way out of it in the table). */
export const FINAL_RUN_STATUSES: readonly RunStatus[] = STATUSES.filter((s) => RUN_TRANSITIONS[s].length === 0);
/** An executor holds the run's lease: only from these does a run complete. Its fenced writes need one of these. */
export const EXECUTING_RUN_STATUSES: readonly RunStatus[] = runStatusesLeadingTo('completed');
/** Waiting for a person, with no executor: what an answer or a hand-back puts back in the queue. */
export const PARKED_RUN_STATUSES: readonly RunStatus[] = runStatusesLeadingTo('queued').filter(
  (s) => !EXECUTING_RUN_STATUSES.includes(s),
);
/** A run in one of these holds its agent: later messages queue behind it. */
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = [...EXECUTING_RUN_STATUSES, ...PARKED_RUN_STATUSES];
/** Queued or active: what a new run of the agent waits behind. */
export const UNFINISHED_RUN_STATUSES: readonly RunStatus[] = STATUSES.filter((s) => !FINAL_RUN_STATUSES.includes(s));

export function isFinalRunStatus(status: RunStatus): boolean {
  return FINAL_RUN_STATUSES.includes(status);
}

export type ParkedRunStatus = 'waiting_input' | 'waiting_takeover';
