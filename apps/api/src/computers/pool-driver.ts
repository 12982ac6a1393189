import type { WorkerEndpoint } from './worker-client.js';

/** What a driver needs to bring one computer up. */
export interface ComputerSpec {
  computerId: string;
  /** Names the computer's home directory (a PVC in the cluster); the home outlives every worker. */
  homeKey: string;
  screenLimit: number;
}

/** The worker serving a computer: where its control API is and who runs it (for stopping it later). */
export interface WorkerBinding {
  computerId: string;
  endpoint: WorkerEndpoint;
  /**
   * Which process or pod serves it, in the driver's own terms (`local:<host>:<pid>` for the local driver).
   * Stored on the Computer row, so that another API process can find the worker again.
   */
  owner: string;
}

/**
 * Where computers run (ARCHITECTURE.md "Pool drivers"). The computers service decides when a computer
 * boots, sleeps or stops and records it in Postgres; a driver only does it.
 */
export abstract class PoolDriver {
  abstract readonly name: 'local' | 'kubernetes';
  /** Starts a worker for the computer and resolves once its control API answers. */
  abstract provision(spec: ComputerSpec, signal?: AbortSignal): Promise<WorkerBinding>;
  /** Freezes the computer's desktop (memory kept, no CPU). */
  abstract suspend(binding: WorkerBinding): Promise<void>;
  abstract wake(binding: WorkerBinding): Promise<void>;
  /** Ends the worker and its desktop; the home is kept. Resolves once nothing of it runs any more. */
  abstract stop(binding: WorkerBinding): Promise<void>;
  /** True when the worker answers its health check (as the computer it is bound to). */
  abstract health(binding: WorkerBinding): Promise<boolean>;
  /**
   * Takes over a worker another API process started (found through the Computer row after a restart):
   * from now on this process stops it when it shuts down. False when this driver cannot or must not.
   */
  abstract adopt(binding: WorkerBinding): boolean;
  /**
   * The API process is stopping: ends the workers that must not outlive it and returns their computer ids
   * (the local driver's workers belong to their API process; pods of the cluster driver outlive it).
   */
  abstract shutdown(): Promise<string[]>;
}
