/** A lease an executor holds on a run: every write carries the fence and is refused once it is stale. */
export interface RunLease {
  runId: string;
  fence: bigint;
}

/** The run's lease moved on (expired and taken by another executor, or the run ended): this holder may not write. */
export class StaleLeaseError extends Error {
  override readonly name = 'StaleLeaseError';
  constructor(readonly runId: string) {
    super(`run ${runId}: the lease is no longer ours`);
  }
}
