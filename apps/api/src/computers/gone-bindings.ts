import type { LostWorker, WorkerBinding } from './pool-driver.js';

/** How long a call in flight may still fail by itself once its worker is reported gone. */
const GONE_GRACE_MS = 1_000;

interface Entry {
  owner: string;
  bindFence: bigint;
  controller: AbortController;
}

/**
 * One abort signal per computer's current binding, aborted when the driver reports that binding's worker
 * gone (its pod deleted, its process exited). A call in flight on it then ends at once, as a vanished
 * worker's call does (COMPUTER_LOST), rather than when its timeout runs out: a pod deleted under a
 * command must not keep the run waiting for minutes on a connection nobody will ever close. One entry
 * per computer (a newer binding replaces the older), so the map stays as small as the pool. A computer's
 * bind fence only grows, so the higher fence is the newer binding.
 */
export class GoneBindings {
  private readonly current = new Map<string, Entry>();

  signal(binding: WorkerBinding): AbortSignal {
    const known = this.current.get(binding.computerId);
    if (known && same(known, binding)) return known.controller.signal;
    // A call still carrying an older binding (a run that read it before a takeover) must not displace the
    // newer one's entry: the newer worker's loss would then find no entry of its own. The driver no longer
    // reports the older binding, so its signal never aborts.
    if (known && known.bindFence > binding.bindFence) return new AbortController().signal;
    // An older binding's entry is replaced: its worker was stopped or taken over, not lost.
    const entry = fresh(binding);
    this.current.set(binding.computerId, entry);
    return entry.controller.signal;
  }

  gone(lost: LostWorker): void {
    let known = this.current.get(lost.computerId);
    // A newer binding of the computer is not touched (a late report of the one before it).
    if (known && (known.bindFence > lost.bindFence || (known.bindFence === lost.bindFence && known.owner !== lost.owner))) {
      return;
    }
    // An older binding's entry (no call has gone through the lost one yet, e.g. it was booted or taken
    // over since) gives way too: the lost binding's calls, made later by whoever read it, end at once.
    if (known && !same(known, lost)) known = undefined;
    // Kept, aborted: a call the run makes on the lost binding afterwards ends at once too.
    known ??= fresh(lost);
    this.current.set(lost.computerId, known);
    // A moment's grace first: a call whose connection fails by itself (refused: nothing was sent; reset: it
    // was in flight) says which it was, where an abort could only say "unknown". What is still waiting
    // after it is on a connection nobody will close.
    const { controller } = known;
    setTimeout(() => controller.abort(new Error(`the worker went away (${lost.reason})`)), GONE_GRACE_MS).unref();
  }
}

function same(entry: Entry, binding: { owner: string; bindFence: bigint }): boolean {
  return entry.owner === binding.owner && entry.bindFence === binding.bindFence;
}

function fresh(binding: { owner: string; bindFence: bigint }): Entry {
  return { owner: binding.owner, bindFence: binding.bindFence, controller: new AbortController() };
}
