import { describe, expect, it } from '@jest/globals';
import {
  ACTIVE_RUN_STATUSES,
  EXECUTING_RUN_STATUSES,
  FINAL_RUN_STATUSES,
  PARKED_RUN_STATUSES,
  RUN_TRANSITIONS,
  UNFINISHED_RUN_STATUSES,
  isFinalRunStatus,
  mayMoveRun,
  runStatusesLeadingTo,
  runStatusSchema,
  type RunStatus,
} from './run-lifecycle.js';

describe('the run status table', () => {
  it('derives the groups the product reasons with', () => {
    expect(FINAL_RUN_STATUSES).toEqual(['completed', 'blocked', 'failed', 'cancelled']);
    expect(EXECUTING_RUN_STATUSES).toEqual(['leased', 'running']);
    expect(PARKED_RUN_STATUSES).toEqual(['waiting_takeover', 'waiting_input']);
    expect(ACTIVE_RUN_STATUSES).toEqual(['leased', 'running', 'waiting_takeover', 'waiting_input']);
    expect(UNFINISHED_RUN_STATUSES).toEqual(['queued', 'leased', 'running', 'waiting_takeover', 'waiting_input']);
    expect(FINAL_RUN_STATUSES.every(isFinalRunStatus)).toBe(true);
    expect(UNFINISHED_RUN_STATUSES.some(isFinalRunStatus)).toBe(false);
  });

  it('names only known statuses, and every run can end from wherever it is', () => {
    const all = runStatusSchema.options;
    expect(Object.keys(RUN_TRANSITIONS).sort()).toEqual([...all].sort());
    for (const targets of Object.values(RUN_TRANSITIONS)) for (const to of targets) expect(all).toContain(to);
    const canEnd = (from: RunStatus, seen = new Set<RunStatus>()): boolean =>
      isFinalRunStatus(from) ||
      (RUN_TRANSITIONS[from] as readonly RunStatus[]).some((to) => !seen.has(to) && canEnd(to, new Set([...seen, from])));
    expect(all.filter((status) => !canEnd(status))).toEqual([]);
  });

  it('keeps a person out of a run an executor holds and an executor out of a parked one', () => {
    // Only an executor (holding the lease) completes or fails a run; a parked run is cancelled, resumed or expires.
    expect(runStatusesLeadingTo('completed')).toEqual(['leased', 'running']);
    expect(runStatusesLeadingTo('failed')).toEqual(['leased', 'running']);
    expect(mayMoveRun('waiting_input', 'running')).toBe(false);
    expect(mayMoveRun('queued', 'running')).toBe(false);
    expect(mayMoveRun('completed', 'queued')).toBe(false);
    expect(mayMoveRun('waiting_takeover', 'blocked')).toBe(true);
  });
});
