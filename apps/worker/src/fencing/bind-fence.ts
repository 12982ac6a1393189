import { BIND_FENCE_HEADER } from '@lazyboy/contracts';
import { WorkerHttpError } from '../http/errors.js';

/**
 * The worker's side of the computer binding's lease (ARCHITECTURE.md, "Leases"): the newest bind fence it
 * was given. Postgres decides which API replica holds the binding; the worker only refuses control calls
 * of a replica that was superseded (its fence is lower), so a stale binder cannot act after a takeover.
 *
 * Memory only, like the screen fences: a new worker starts at 0 and is bound by whoever provisioned it.
 */
export class BindFence {
  private newest = 0;

  get current(): number {
    return this.newest;
  }

  /** A new binding: the same fence again is a harmless repeat, a lower one is refused. */
  bind(fence: number): number {
    if (fence < this.newest) throw stale(fence, this.newest);
    this.newest = fence;
    return this.newest;
  }

  /**
   * Admits a control call by its header. Once bound, a call must carry a fence, and not a lower one; a call
   * carrying a higher one than the worker knows is admitted (its binder told the worker first, but the
   * answer was lost), and raises the fence, so the superseded binder is refused from then on.
   */
  admit(header: string | string[] | undefined): void {
    const raw = Array.isArray(header) ? header[0] : header;
    if (raw === undefined) {
      if (this.newest === 0) return;
      throw new WorkerHttpError('STALE_BINDER', `this worker is bound with fence ${this.newest}; the call carried none`, {
        bindFence: null,
        newestBindFence: this.newest,
      });
    }
    const fence = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(fence)) {
      throw new WorkerHttpError('VALIDATION_FAILED', `${BIND_FENCE_HEADER} must be a whole number`);
    }
    this.bind(fence);
  }
}

function stale(fence: number, newest: number): WorkerHttpError {
  return new WorkerHttpError(
    'STALE_BINDER',
    `bind fence ${fence} is older than ${newest}: another API replica has taken this computer over; nothing was done`,
    { bindFence: fence, newestBindFence: newest },
  );
}
