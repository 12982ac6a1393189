import type { WorkerCallOptions, WorkerClientHooks, WorkerEndpoint } from './worker-client.js';
import { neverDelivered, WorkerCallError, WorkerClient } from './worker-client.js';
import type { WorkerRequest, WorkerResponse, WorkerRoute } from '@lazyboy/contracts';
import type { WorkerBinding } from './pool-driver.js';

/** Brings the run's screen up again on the computer as it is now (booted anew, or taken over): its binding. */
export type Rebind = (signal?: AbortSignal) => Promise<WorkerBinding>;

/**
 * The worker client a run's tools use. It follows the computer's binding: a call refused with
 * STALE_BINDER (another replica took the computer over since the run acquired it; nothing was done) is
 * made once more with the binding as it is now, and so is one that met a vanished worker before reaching
 * it (connection refused: nothing was done), on a new worker. After a call failed with COMPUTER_LOST in
 * flight (its outcome unknown, the model is told so) the next call first brings the screen up on a new
 * worker. A new worker has a higher bind fence; the run keeps its own execution fence.
 */
export class RunScreenWorker extends WorkerClient {
  private lost = false;

  private constructor(
    private readonly state: { binding: WorkerBinding },
    hooks: WorkerClientHooks,
    private readonly rebind: Rebind,
  ) {
    super(state.binding.endpoint, hooks);
  }

  static create(
    binding: WorkerBinding,
    hooks: {
      unreachable: (binding: WorkerBinding, error: WorkerCallError) => Promise<WorkerCallError>;
      /** Aborted when the binding's worker is reported gone (ComputersService.goneSignal). */
      gone: (binding: WorkerBinding) => AbortSignal;
    },
    rebind: Rebind,
  ): RunScreenWorker {
    const state = { binding };
    return new RunScreenWorker(
      state,
      { unreachable: (error) => hooks.unreachable(state.binding, error), gone: () => hooks.gone(state.binding) },
      rebind,
    );
  }

  override get endpoint(): WorkerEndpoint {
    return this.state.binding.endpoint;
  }

  override async call<R extends WorkerRoute>(
    route: R,
    body: WorkerRequest<R>,
    options: WorkerCallOptions = {},
  ): Promise<WorkerResponse<R>> {
    if (this.lost) {
      await this.follow(options.signal);
      this.lost = false;
    }
    try {
      return await super.call(route, body, options);
    } catch (error) {
      if (!(error instanceof WorkerCallError)) throw error;
      const unsent = error.code === 'COMPUTER_LOST' && neverDelivered(error);
      if (error.code === 'COMPUTER_LOST' && !unsent) this.lost = true;
      if (error.code !== 'STALE_BINDER' && !unsent) throw error;
    }
    await this.follow(options.signal);
    return super.call(route, body, options);
  }

  private async follow(signal?: AbortSignal): Promise<void> {
    this.state.binding = await this.rebind(signal);
    this.target = this.state.binding.endpoint;
  }
}
