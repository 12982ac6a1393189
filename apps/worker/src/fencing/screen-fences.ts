import type { ControlHolder, ScreenControlState } from '@lazyboy/contracts';
import { WorkerHttpError } from '../http/errors.js';

interface SlotLeases {
  /** Newest execution fence seen; undefined before the first fenced call. */
  execution: number | undefined;
  control: ScreenControlState;
}

/**
 * The worker's side of the two screen leases (ARCHITECTURE.md, "Leases"): per slot the newest execution
 * fence (which run may act) and the control holder with its own fence (agent or a person). The database
 * decides who holds what; the worker only refuses writes from a holder that has been superseded, so a
 * run that lost its lease while a call was in flight cannot touch the screen after its successor has.
 *
 * Memory only: after a worker restart the first call of the current holder re-establishes the fence.
 */
export class ScreenFences {
  private readonly slots = new Map<number, SlotLeases>();

  /**
   * Admits a call carrying `fence`: an older fence is refused (STALE_FENCE, nothing done); a newer one
   * becomes the newest at once, so calls of the older holder still queued are refused when their turn
   * comes. Returns true when the fence is new (a different run now owns the slot).
   */
  admitExecution(slot: number, fence: number): boolean {
    const leases = this.leases(slot);
    if (leases.execution !== undefined && fence < leases.execution) throw staleExecution(slot, fence, leases.execution);
    const advanced = leases.execution !== fence;
    leases.execution = fence;
    return advanced;
  }

  /** Refuses `fence` if a newer one has been admitted since (used again just before acting). */
  assertCurrentExecution(slot: number, fence: number): void {
    const newest = this.leases(slot).execution;
    if (newest !== undefined && fence !== newest) throw staleExecution(slot, fence, newest);
  }

  executionFence(slot: number): number | undefined {
    return this.slots.get(slot)?.execution;
  }

  /**
   * Takeover and release. A newer control fence wins; the same fence with the same holder is a harmless
   * repeat; anything else comes from a superseded lease and is refused.
   */
  setControl(slot: number, holder: ControlHolder, fence: number): ScreenControlState {
    const leases = this.leases(slot);
    const current = leases.control;
    const repeat = fence === current.fence && holder === current.holder;
    if (!repeat && fence <= current.fence) {
      throw new WorkerHttpError(
        'STALE_FENCE',
        `control fence ${fence} of slot ${slot} is not newer than ${current.fence} (holder ${current.holder}); refused`,
        { slot, fence, newestFence: current.fence, holder: current.holder, lease: 'control' },
      );
    }
    leases.control = { holder, fence };
    return { ...leases.control };
  }

  /** Slots any lease has been recorded for. */
  knownSlots(): number[] {
    return [...this.slots.keys()];
  }

  control(slot: number): ScreenControlState {
    return { ...(this.slots.get(slot)?.control ?? { holder: 'agent', fence: 0 }) };
  }

  /** A person's own input: only while they hold the screen, with the control fence of that hold. */
  assertPersonHolds(slot: number, fence: number): void {
    const control = this.control(slot);
    if (control.holder !== 'user' || control.fence !== fence) {
      throw new WorkerHttpError(
        'STALE_FENCE',
        `control fence ${fence} of slot ${slot} is not a person's current hold (holder ${control.holder}, fence ${control.fence}); nothing typed`,
        { slot, fence, newestFence: control.fence, holder: control.holder, lease: 'control' },
      );
    }
  }

  /** Agent actions stop at the boundary of a call while a person holds the screen. */
  assertAgentMayAct(slot: number, action: string): void {
    const control = this.control(slot);
    if (control.holder === 'user') {
      throw new WorkerHttpError(
        'CONTROL_HELD_BY_USER',
        `a person has taken over slot ${slot}; '${action}' was not done. Wait until they hand control back.`,
        { slot, holder: 'user', controlFence: control.fence },
      );
    }
  }

  private leases(slot: number): SlotLeases {
    let leases = this.slots.get(slot);
    if (!leases) {
      leases = { execution: undefined, control: { holder: 'agent', fence: 0 } };
      this.slots.set(slot, leases);
    }
    return leases;
  }
}

function staleExecution(slot: number, fence: number, newest: number): WorkerHttpError {
  return new WorkerHttpError(
    'STALE_FENCE',
    `execution fence ${fence} of slot ${slot} is older than ${newest}: another run holds this screen; nothing was done`,
    { slot, fence, newestFence: newest, lease: 'execution' },
  );
}
