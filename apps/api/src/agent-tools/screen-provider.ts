import type { AcquiredScreen } from '../computers/run-screens.js';

/** Where the computer tools get the run's screen. Implemented by the run executor over RunScreens. */
export interface ScreenProvider {
  /** The run's screen: the first call boots/wakes the computer and takes the execution lease; later calls reuse it. */
  get(signal: AbortSignal): Promise<AcquiredScreen>;
  /**
   * A worker refused the run's fence (409 STALE_FENCE): another executor or run now holds the screen. The
   * runtime turns thrown tool errors into ordinary error results, so the tools end the turn with a `blocked`
   * directive and call this so the executor knows the cause and stops the run (without releasing a lease
   * it no longer holds). Called at most once per refused call; may be called more than once per run.
   */
  onLeaseLost?(error: ScreenLeaseLostError): void;
}

/** The run no longer holds its screen's execution lease: a newer fence won. The run must stop. */
export class ScreenLeaseLostError extends Error {
  override readonly name = 'ScreenLeaseLostError';
  constructor(
    message: string,
    /** The fence this run carried, when known. */
    readonly fence?: number,
  ) {
    super(message);
  }
}
