import { describe, expect, it } from '@jest/globals';
import { GoneBindings } from './gone-bindings.js';
import type { LostWorker, WorkerBinding } from './pool-driver.js';
import { sleep } from '../../../../test/support/index.js';

// Which calls a lost worker ends: those of its own binding (made before or after the report), never a
// newer binding's, whatever binding the computer's calls last went through.

const binding = (owner: string, bindFence: bigint): WorkerBinding => ({
  computerId: 'c',
  endpoint: { baseUrl: `http://${owner}`, token: 't', bindFence: Number(bindFence) },
  owner,
  bindFence,
});
const lost = (owner: string, bindFence: bigint): LostWorker => ({
  computerId: 'c',
  owner,
  bindFence,
  reason: 'its pod is being deleted',
});
/** Past the grace a call in flight gets to fail by itself. */
const graceOver = () => sleep(1_200);

describe('GoneBindings', () => {
  it("aborts the lost binding's calls, in flight and later, after the grace", async () => {
    const gone = new GoneBindings();
    const inFlight = gone.signal(binding('pod-a', 1n));
    gone.gone(lost('pod-a', 1n));
    expect(inFlight.aborted).toBe(false);
    await graceOver();
    expect(inFlight.aborted).toBe(true);
    expect(gone.signal(binding('pod-a', 1n)).aborted).toBe(true);
    // The next boot's binding starts clean.
    expect(gone.signal(binding('pod-b', 2n)).aborted).toBe(false);
  });

  it('ends a binding reported lost before any call went through it, though an older binding made the last calls', async () => {
    const gone = new GoneBindings();
    gone.signal(binding('pod-a', 1n)); // the run before, on the pod before
    gone.gone(lost('pod-b', 2n)); // the new pod goes before its first call
    await graceOver();
    expect(gone.signal(binding('pod-b', 2n)).aborted).toBe(true);
  });

  it('leaves a newer binding alone: a late report of the older one, or a call still carrying it, does not touch it', async () => {
    const gone = new GoneBindings();
    const newer = gone.signal(binding('pod-b', 2n));
    gone.gone(lost('pod-a', 1n));
    // A run that read the older binding calls with it: the newer binding's entry stays.
    expect(gone.signal(binding('pod-a', 1n)).aborted).toBe(false);
    gone.gone(lost('pod-b', 2n));
    await graceOver();
    expect(newer.aborted).toBe(true);
  });
});
