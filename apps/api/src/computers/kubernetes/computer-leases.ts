import { V1MicroTime, type CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import { isConflict, isNotFound } from './api-errors.js';
import { labels, MANAGER, WORKER_APP } from './worker-pods.js';

/** The Lease of one computer's binding. */
export function leaseName(computerId: string): string {
  return `lazyboy-computer-${computerId}`.toLowerCase().slice(0, 253);
}

/**
 * The cluster's half of a computer's binding (the other half is `Computer.bindFence` in Postgres): a
 * `coordination.k8s.io/v1` Lease per computer whose holder is the API replica driving its pod. Every write
 * carries the resourceVersion it read, so of two replicas writing at once one gets 409: a replica that was
 * superseded learns it at its next renewal, and lets the computer go.
 */
export class ComputerLeases {
  constructor(
    private readonly api: CoordinationV1Api,
    private readonly namespace: string,
    /** This API replica. */
    private readonly holder: string,
    private readonly durationMs: number,
  ) {}

  /**
   * Makes this replica the holder. Postgres already decided (the bind fence's compare-and-set), so a live
   * holder is replaced too; a concurrent write (the old holder renewing) is read again and retried.
   */
  async acquire(computerId: string, bindFence: bigint): Promise<void> {
    const name = leaseName(computerId);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const current = await this.read(name);
      // MicroTime fields: the API server refuses millisecond timestamps.
      const now = new V1MicroTime();
      if (!current) {
        try {
          await this.api.createNamespacedLease({
            namespace: this.namespace,
            body: this.lease(name, computerId, bindFence, now, 0),
          });
          return;
        } catch (error) {
          if (isConflict(error)) continue; // created by another replica meanwhile: read it and take it over
          throw error;
        }
      }
      const transitions = (current.spec?.leaseTransitions ?? 0) + (current.spec?.holderIdentity === this.holder ? 0 : 1);
      const body = this.lease(name, computerId, bindFence, now, transitions);
      body.metadata!.resourceVersion = current.metadata?.resourceVersion;
      body.spec!.acquireTime = current.spec?.holderIdentity === this.holder ? current.spec.acquireTime : now;
      try {
        await this.api.replaceNamespacedLease({ name, namespace: this.namespace, body });
        return;
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
    throw new Error(`the Lease of computer ${computerId} kept changing while it was taken`);
  }

  /** Renews this replica's Lease; false when another replica holds it now (or it is gone). */
  async renew(computerId: string): Promise<boolean> {
    const name = leaseName(computerId);
    const current = await this.read(name);
    if (!current || current.spec?.holderIdentity !== this.holder) return false;
    current.spec.renewTime = new V1MicroTime();
    try {
      await this.api.replaceNamespacedLease({ name, namespace: this.namespace, body: current });
      return true;
    } catch (error) {
      if (isConflict(error)) return false; // taken meanwhile: its resourceVersion moved on
      throw error;
    }
  }

  /** Ends the Lease when this replica holds it (the computer stopped). */
  async release(computerId: string): Promise<void> {
    const name = leaseName(computerId);
    const current = await this.read(name);
    if (!current || current.spec?.holderIdentity !== this.holder) return;
    try {
      await this.api.deleteNamespacedLease({
        name,
        namespace: this.namespace,
        body: { preconditions: { resourceVersion: current.metadata?.resourceVersion } },
      });
    } catch (error) {
      if (!isConflict(error) && !isNotFound(error)) throw error;
    }
  }

  /** The holder and bind fence the cluster records for a computer. */
  async holderOf(computerId: string): Promise<{ holder: string; bindFence: string } | undefined> {
    const lease = await this.read(leaseName(computerId));
    if (!lease?.spec?.holderIdentity) return undefined;
    return { holder: lease.spec.holderIdentity, bindFence: lease.metadata?.annotations?.[BIND_FENCE_ANNOTATION] ?? '' };
  }

  private async read(name: string): Promise<V1Lease | undefined> {
    try {
      return await this.api.readNamespacedLease({ name, namespace: this.namespace });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private lease(name: string, computerId: string, bindFence: bigint, now: V1MicroTime, transitions: number): V1Lease {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name,
        namespace: this.namespace,
        labels: { [labels.name]: WORKER_APP, [labels.managedBy]: MANAGER, [labels.computer]: computerId },
        annotations: { [BIND_FENCE_ANNOTATION]: bindFence.toString() },
      },
      spec: {
        holderIdentity: this.holder,
        leaseDurationSeconds: Math.max(1, Math.round(this.durationMs / 1000)),
        acquireTime: now,
        renewTime: now,
        leaseTransitions: transitions,
      },
    };
  }
}

/** The bind fence of the binding the Lease stands for (readable beside the holder, e.g. by an operator). */
const BIND_FENCE_ANNOTATION = 'lazyboy.dev/bind-fence';
