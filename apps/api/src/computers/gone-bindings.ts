import type { LostWorker, WorkerBinding } from './pool-driver.js';

/** How long a call in flight may still fail by itself once its worker is reported gone. */
const GONE_GRACE_MS = 1_000;

/**
 * One abort signal per computer's current binding, aborted when the driver reports that binding's worker
 * gone (its pod deleted, its process exited). A call in flight on it then ends at once, as a vanished
 * worker's call does (COMPUTER_LOST), rather than when its timeout runs out: a pod deleted under a
 * command must not keep the run waiting for minutes on a connection nobody will ever close. One entry
 * per computer (a newer binding replaces the older), so the map stays as small as the pool.
 */
export class GoneBindings {
  private readonly current = new Map<string, { owner: string; bindFence: bigint; controller: AbortController }>();

  signal(binding: WorkerBinding): AbortSignal {
    const known = this.current.get(binding.computerId);
    if (known && known.owner === binding.owner && known.bindFence === binding.bindFence) return known.controller.signal;
    const entry = { owner: binding.owner, bindFence: binding.bindFence, controller: new AbortController() };
    // An older binding's entry is replaced: its worker was stopped or taken over, not lost.
    this.current.set(binding.computerId, entry);
    return entry.controller.signal;
  }

  gone(lost: LostWorker): void {
    let known = this.current.get(lost.computerId);
    if (known && (known.owner !== lost.owner || known.bindFence !== lost.bindFence)) return;
    // Kept, aborted: a call the run makes on the lost binding afterwards ends at once too.
    known ??= { owner: lost.owner, bindFence: lost.bindFence, controller: new AbortController() };
    this.current.set(lost.computerId, known);
    // A moment's grace first: a call whose connection fails by itself (refused: nothing was sent; reset: it
    // was in flight) says which it was, where an abort could only say "unknown". What is still waiting
    // after it is on a connection nobody will close.
    const { controller } = known;
    setTimeout(() => controller.abort(new Error(`the worker went away (${lost.reason})`)), GONE_GRACE_MS).unref();
  }
}
