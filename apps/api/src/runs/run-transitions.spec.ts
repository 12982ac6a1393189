import { describe, expect, it } from '@jest/globals';
import { mayMoveRun } from '@lazyboy/contracts';
import { heldBy, RUN_MOVES, statusIn } from './run-transitions.js';

describe('the runs repository’s status writes', () => {
  it('are all transitions the status table allows', () => {
    const moves = [
      RUN_MOVES.lease,
      RUN_MOVES.run,
      RUN_MOVES.requeue,
      RUN_MOVES.cancelUnheld,
      ...Object.values(RUN_MOVES.park),
      ...Object.values(RUN_MOVES.resume),
      ...Object.values(RUN_MOVES.finish),
    ];
    for (const move of moves)
      for (const from of move.from) expect([from, move.to, mayMoveRun(from, move.to)]).toEqual([from, move.to, true]);
  });

  it('write the fenced condition and status lists as SQL once', () => {
    expect(statusIn(['leased', 'running'], 'r.status').sql).toBe("r.status IN ('leased', 'running')");
    expect(() => statusIn(["queued') OR (1=1" as never])).toThrow();
    const held = heldBy({ runId: '0190b5e2-0000-7000-8000-000000000000', fence: 3n });
    expect(held.text).toBe(`id = $1::uuid AND "leaseFence" = $2 AND status IN ('leased', 'running')`);
    expect(held.values).toEqual(['0190b5e2-0000-7000-8000-000000000000', 3n]);
  });
});
