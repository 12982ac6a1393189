import type { BusyStep, ControlHolder } from '@lazyboy/contracts';
import type { WorkerClient } from './worker-client.js';

/** A run's hold on its agent's screen: where to send control calls, and the execution fence to carry. */
export interface AcquiredScreen {
  computerId: string;
  screenId: string;
  slot: number;
  /** The execution fence of this acquisition; every control call carries it and the worker refuses older ones. */
  fence: number;
  worker: WorkerClient;
}

export interface AcquireScreenInput {
  workspaceId: string;
  agentId: string;
  runId: string;
  /** Progress for the run's busy step (booting, waking). */
  onStep(step: BusyStep): void;
  signal: AbortSignal;
}

/**
 * What the run executor needs of computers. Implemented by the computers module over the pool driver.
 */
export abstract class RunScreens {
  /**
   * Boots or wakes the agent's computer as needed, ensures the agent's screen and takes its execution lease
   * for the run (fence + 1, so any older holder's calls are refused from now on).
   */
  abstract acquire(input: AcquireScreenInput): Promise<AcquiredScreen>;
  /** Gives the execution lease back when the run ends or parks (only if the run still holds it). */
  abstract release(runId: string): Promise<void>;
  /** Who holds control of the agent's screen: `user` while a person has taken over. */
  abstract controlHolder(agentId: string): Promise<ControlHolder>;
}
