import { workerRoutes } from '@lazyboy/contracts';
import { WorkerClient, type WorkerEndpoint } from './worker-client.js';

/** What a driver needs to bring one computer up. */
export interface ComputerSpec {
  computerId: string;
  /** Names the computer's home directory (a PVC in the cluster); the home outlives every worker. */
  homeKey: string;
  screenLimit: number;
  /** The boot's bind fence (the claim in Postgres): the new worker is bound with it before it is handed out. */
  bindFence: bigint;
  /** The computer's workspace (the cluster driver labels the pod and the home volume with it). */
  workspaceId?: string;
}

/** The worker serving a computer: where its control API is, who runs it, and the binding's fence. */
export interface WorkerBinding {
  computerId: string;
  /** Its `bindFence` is the binding's, sent on every call (the worker refuses lower ones). */
  endpoint: WorkerEndpoint;
  /**
   * Which process or pod serves it, in the driver's own terms (`local:<host>:<pid>` for the local driver,
   * `static:<address>:<port>/<assignment>` for the static one).
   * Stored on the Computer row, so that another API process can find the worker again.
   */
  owner: string;
  /** `Computer.bindFence` of this binding. */
  bindFence: bigint;
}

/** A worker went away without being stopped (its process exited, its pod was deleted or evicted, it restarted). */
export interface LostWorker {
  computerId: string;
  owner: string;
  /** The binding it served: only that one is ended (a newer binding of the computer is not touched). */
  bindFence: bigint;
  reason: string;
}

/**
 * Where computers run (ARCHITECTURE.md "Pool drivers"). The computers service decides when a computer
 * boots, sleeps, stops or changes binder, and records it in Postgres (`Computer.bindFence`,
 * `bindExpiresAt`: the binding's lease, renewed by the API process responsible for the worker); a driver
 * only does it, and tells the service when a worker it runs went away. Every driver passes
 * `pool-driver.conformance.ts`.
 */
export abstract class PoolDriver {
  abstract readonly name: 'local' | 'kubernetes' | 'static' | 'fake';
  /**
   * Starts (or, from a warm pool, takes) a worker for the computer, binds it with `spec.bindFence` and
   * resolves once its control API answers as that computer.
   */
  abstract provision(spec: ComputerSpec, signal?: AbortSignal): Promise<WorkerBinding>;
  /**
   * A new binding of a running worker (a takeover): tells the worker `bindFence`, so calls carrying a lower
   * one are refused from then on (STALE_BINDER). Resolves with the binding as it now is.
   */
  abstract bind(binding: WorkerBinding, bindFence: bigint): Promise<WorkerBinding>;
  /** Freezes the computer's desktop (memory kept, no CPU). The same for every driver: the worker does it. */
  async suspend(binding: WorkerBinding): Promise<void> {
    await new WorkerClient(binding.endpoint).call(workerRoutes.suspend, {}, { timeoutMs: 30_000 });
  }

  async wake(binding: WorkerBinding): Promise<void> {
    await new WorkerClient(binding.endpoint).call(workerRoutes.wake, {}, { timeoutMs: 60_000 });
  }

  /** Tells the worker the new bind fence (the part of `bind` every driver shares); the binding as it now is. */
  protected async fenceWorker(binding: WorkerBinding, bindFence: bigint): Promise<WorkerBinding> {
    const bound: WorkerBinding = { ...binding, bindFence, endpoint: { ...binding.endpoint, bindFence: Number(bindFence) } };
    await new WorkerClient(bound.endpoint).call(workerRoutes.bind, { bindFence: Number(bindFence) }, { timeoutMs: 10_000 });
    return bound;
  }
  /** Ends the worker and its desktop; the home is kept. Resolves once nothing of it runs any more. */
  abstract stop(binding: WorkerBinding): Promise<void>;
  /**
   * True when the worker answers as the computer it is bound to, with the binding's fence. The same for
   * every driver (it asks the worker over its control API, wherever the worker runs).
   */
  async health(binding: WorkerBinding): Promise<boolean> {
    try {
      const screens = await new WorkerClient(binding.endpoint).call(workerRoutes.listScreens, {}, { timeoutMs: 5_000 });
      return screens.computerId === binding.computerId;
    } catch {
      return false;
    }
  }
  /**
   * Takes over a worker another API process started (found through the Computer row after a restart):
   * from now on this process stops it when it shuts down, and hears when it goes away. False when this
   * driver cannot or must not (the worker is gone, or still belongs to a live API process on this host).
   */
  abstract adopt(binding: WorkerBinding): Promise<boolean>;
  /**
   * Another API process has taken the worker over (its lease lapsed here): forget it without stopping it,
   * so this process neither stops it at shutdown nor reports it lost.
   */
  abstract release(binding: WorkerBinding): void;
  /** Calls `listener` whenever a worker this driver runs went away unexpectedly. Returns the unsubscribe. */
  abstract onLost(listener: (lost: LostWorker) => void): () => void;
  /**
   * The API process is stopping: ends the workers that must not outlive it and returns their bindings
   * (the local driver's workers belong to their API process; pods of the cluster driver and the static
   * pool's workers outlive it).
   */
  abstract shutdown(): Promise<WorkerBinding[]>;
}
