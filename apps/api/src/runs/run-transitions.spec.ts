import { describe, expect, it } from '@jest/globals';
import { mayMoveRun } from '@lazyboy/contracts';
import { heldBy, RUN_MOVES, statusIn, type RunTransition } from './run-transitions.js';

describe('the runs repository’s status writes', () => {
  it('are all transitions the status table allows', () => {
    // Every entry, nested ones (park, resume, finish) included: a new move cannot be left out of the check.
    const moves = Object.values(RUN_MOVES).flatMap((entry): RunTransition[] =>
      'to' in entry ? [entry as RunTransition] : Object.values(entry as Record<string, RunTransition>),
    );
    expect(moves.length).toBeGreaterThanOrEqual(15);
    for (const move of moves)
      for (const from of move.from) expect([from, move.to, mayMoveRun(from, move.to)]).toEqual([from, move.to, true]);
    // A run is born queued: from nothing, and the one move out of nothing.
    expect(moves.filter((move) => move.from.length === 0)).toEqual([RUN_MOVES.born]);
    expect(RUN_MOVES.born.to).toBe('queued');
  });

  it('write the fenced condition and status lists as SQL once', () => {
    expect(statusIn(['leased', 'running'], 'r.status').sql).toBe("r.status IN ('leased', 'running')");
    expect(() => statusIn(["queued') OR (1=1" as never])).toThrow();
    const held = heldBy({ runId: '0190b5e2-0000-7000-8000-000000000000', fence: 3n });
    expect(held.text).toBe(`id = $1::uuid AND "leaseFence" = $2 AND status IN ('leased', 'running')`);
    expect(held.values).toEqual(['0190b5e2-0000-7000-8000-000000000000', 3n]);
  });
});
