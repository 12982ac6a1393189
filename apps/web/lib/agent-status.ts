import { isFinalRunStatus, type BusyStep, type BusyStepKind, type RunStatus, type RunView } from '@lazyboy/contracts';

// What an agent is doing, as the sidebar, the avatar and the busy line show it, derived from its runs.

export type AgentStatusKind = 'idle' | 'queued' | 'thinking' | 'booting' | 'waking' | 'acting' | 'waiting';

/** The busy steps that are a tool call (the others are statuses of their own). */
export type ActingStepKind = Exclude<BusyStepKind, 'thinking' | 'booting' | 'waking'>;

export type AgentStatus =
  | { kind: 'idle' | 'queued' | 'thinking' | 'booting' | 'waking' }
  /** `step` is the tool call under way, worded by busyStepLabel. */
  | { kind: 'acting'; step: BusyStep & { kind: ActingStepKind } }
  | { kind: 'waiting'; on: 'input' | 'takeover' };

export function isFinalRun(run: Pick<RunView, 'status'>): boolean {
  return isFinalRunStatus(run.status);
}

/** The agent's status from its most relevant run (see pickStatusRun); idle without one. */
export function agentStatus(run: Pick<RunView, 'status' | 'busyStep'> | null | undefined): AgentStatus {
  if (!run) return { kind: 'idle' };
  // Every status, so that a new one fails the type check here.
  switch (run.status) {
    case 'completed':
    case 'blocked':
    case 'failed':
    case 'cancelled':
      return { kind: 'idle' };
    case 'queued':
      return { kind: 'queued' };
    case 'waiting_input':
      return { kind: 'waiting', on: 'input' };
    case 'waiting_takeover':
      return { kind: 'waiting', on: 'takeover' };
    case 'leased':
    case 'running':
      return fromBusyStep(run.busyStep);
  }
}

function fromBusyStep(step: BusyStep | null): AgentStatus {
  // A leased run has no step yet: its executor is about to think.
  if (!step || step.kind === 'thinking') return { kind: 'thinking' };
  if (step.kind === 'booting' || step.kind === 'waking') return { kind: step.kind };
  return { kind: 'acting', step: { ...step, kind: step.kind } };
}

/** Higher wins: an agent working on one run while others queue behind it is working, not queued. */
const WEIGHT: Record<RunStatus, number> = {
  waiting_input: 4,
  waiting_takeover: 4,
  running: 3,
  leased: 2,
  queued: 1,
  completed: 0,
  blocked: 0,
  failed: 0,
  cancelled: 0,
};

/**
 * The run that decides an agent's status among its known runs: the one holding the agent (active), else
 * the oldest queued one (it starts next). Runs that are over never count.
 */
export function pickStatusRun<R extends Pick<RunView, 'status' | 'createdAt'>>(runs: Iterable<R>): R | null {
  let best: R | null = null;
  for (const run of runs) {
    if (isFinalRun(run)) continue;
    if (
      !best ||
      WEIGHT[run.status] > WEIGHT[best.status] ||
      (WEIGHT[run.status] === WEIGHT[best.status] && run.createdAt < best.createdAt)
    )
      best = run;
  }
  return best;
}
