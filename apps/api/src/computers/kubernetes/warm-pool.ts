import { randomBytes } from 'node:crypto';
import { PatchStrategy, setHeaderOptions, type CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { describeApiError, isConflict, isNotFound } from './api-errors.js';
import { nameOf, type WorkerPodWatch } from './worker-pod-watch.js';
import { homeClaim, labels, ownerLabels, podReady, workerPod, type Owner, type WorkerPodTemplate } from './worker-pods.js';

/** How long a refill waits for the watch to report a pod it created (it is there within milliseconds). */
const CACHE_WAIT_MS = 10_000;

/** A warm pod taken for a computer: the pod and the fresh volume it came with. */
export interface ClaimedPod {
  pod: V1Pod;
  claimName: string;
}

/** A name no other pod or volume of the namespace has: `<prefix>-<12 random hex>`. */
export function freshName(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

/**
 * N ready worker pods nobody has yet, each with a fresh volume of its own, so that a computer without a
 * home boots by taking one (no pod start, no volume to make) and keeps its volume as its home. Taking one
 * is a label change carrying the pod's resourceVersion: of two replicas taking the same pod, one gets 409
 * and takes another. The pool is refilled in the background after each take; several replicas refilling
 * at once may overshoot, and the surplus is deleted again at the next refill.
 */
export class WarmPool {
  private refilling: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly core: CoreV1Api,
    private readonly watch: WorkerPodWatch,
    private readonly template: WorkerPodTemplate,
    private readonly size: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Ready warm pods, oldest first (the longest-waiting is taken first). */
  ready(): V1Pod[] {
    return this.warm()
      .filter(podReady)
      .sort((a, b) => createdAt(a) - createdAt(b));
  }

  /** Takes a ready warm pod for `owner`; undefined when none is ready (the caller starts one cold). */
  async take(owner: Owner): Promise<ClaimedPod | undefined> {
    for (const pod of this.ready()) {
      const claimName = pod.spec?.volumes?.find((v) => v.name === 'computer')?.persistentVolumeClaim?.claimName;
      if (!claimName) continue;
      try {
        const taken = await this.core.patchNamespacedPod(
          {
            name: nameOf(pod),
            namespace: this.template.namespace,
            body: {
              metadata: {
                resourceVersion: pod.metadata?.resourceVersion,
                labels: { [labels.state]: 'bound', ...ownerLabels(owner) },
              },
            },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
        // Until the patch's event reaches the watch, its cache still shows this pod warm, and a refill
        // counting then would find the pool full: refill once the cache has caught up (or waited enough).
        void this.watch
          .until(nameOf(pod), (p) => p.metadata?.labels?.[labels.state] !== 'warm', CACHE_WAIT_MS)
          .catch(() => undefined)
          .then(() => this.refillSoon());
        return { pod: taken, claimName };
      } catch (error) {
        if (isConflict(error) || isNotFound(error)) continue; // taken (or gone) meanwhile: the next one
        throw error;
      }
    }
    this.refillSoon();
    return undefined;
  }

  /** Starts a refill unless one runs (then it runs once more after it). */
  refillSoon(): void {
    if (this.closed || this.size < 0) return;
    if (this.refilling) {
      this.again = true;
      return;
    }
    this.refilling = this.refill()
      .catch((error: unknown) => this.log(`refilling the warm pool failed: ${describeApiError(error)}`))
      .finally(() => {
        this.refilling = undefined;
        if (this.again && !this.closed) {
          this.again = false;
          this.refillSoon();
        }
      });
  }

  /** Resolves once the refill running now (if any) is done. */
  async settled(): Promise<void> {
    while (this.refilling) await this.refilling;
  }

  close(): void {
    this.closed = true;
  }

  private async refill(): Promise<void> {
    const warm = this.warm();
    for (let missing = this.size - warm.length; missing > 0 && !this.closed; missing -= 1) {
      const claimName = freshName('lazyboy-home');
      await this.core.createNamespacedPersistentVolumeClaim({
        namespace: this.template.namespace,
        body: homeClaim(this.template, claimName),
      });
      try {
        const created = await this.core.createNamespacedPod({
          namespace: this.template.namespace,
          body: workerPod(this.template, freshName('lazyboy-warm'), claimName),
        });
        // The next refill counts from the watch's cache: until the new pod is in it, that refill would
        // count one too few and start a second pod.
        await this.watch.until(nameOf(created), () => true, CACHE_WAIT_MS).catch(() => undefined);
      } catch (error) {
        await this.deleteClaim(claimName);
        throw error;
      }
    }
    // More than wanted (replicas refilled at once, or the size was lowered): the newest surplus goes.
    const surplus = warm.length - this.size;
    if (surplus > 0) {
      const newest = [...warm].sort((a, b) => createdAt(b) - createdAt(a));
      for (const pod of newest.slice(0, surplus)) await this.discard(pod);
    }
  }

  /** Deletes a warm pod and its fresh volume; a pod taken meanwhile (409 on its resourceVersion) stays. */
  private async discard(pod: V1Pod): Promise<void> {
    try {
      await this.core.deleteNamespacedPod({
        name: nameOf(pod),
        namespace: this.template.namespace,
        body: { preconditions: { resourceVersion: pod.metadata?.resourceVersion } },
      });
    } catch (error) {
      if (isConflict(error) || isNotFound(error)) return;
      throw error;
    }
    const claimName = pod.spec?.volumes?.find((v) => v.name === 'computer')?.persistentVolumeClaim?.claimName;
    if (claimName) await this.deleteClaim(claimName);
  }

  private async deleteClaim(name: string): Promise<void> {
    try {
      await this.core.deleteNamespacedPersistentVolumeClaim({ name, namespace: this.template.namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** Warm pods that can still become ready (not failed, not being deleted). */
  private warm(): V1Pod[] {
    return this.watch
      .pods()
      .filter(
        (pod) =>
          pod.metadata?.labels?.[labels.state] === 'warm' &&
          !pod.metadata.deletionTimestamp &&
          pod.status?.phase !== 'Failed' &&
          pod.status?.phase !== 'Succeeded',
      );
  }
}

/**
 * When a pod was made. A listed pod carries a Date, but the informer stores a watch event's object as the
 * API server sent it, where the timestamp is still an RFC 3339 string.
 */
function createdAt(pod: V1Pod): number {
  const stamp = pod.metadata?.creationTimestamp as Date | string | undefined;
  return stamp === undefined ? 0 : new Date(stamp).getTime();
}
