import {
  makeInformer,
  type CoreV1Api,
  type Informer,
  type KubeConfig,
  type ObjectCache,
  type V1Pod,
} from '@kubernetes/client-node';
import { containersEnded, podGoneReason, podReady, WORKER_SELECTOR } from './worker-pods.js';

/** Something happened to a worker pod: it changed (`pod`), or it is gone (`pod` as last seen). */
export type PodListener = (pod: V1Pod, gone: boolean) => void;

/**
 * The worker pods of the namespace as the API server last told them (an informer: one list, then a watch,
 * re-listed after a break), so that the driver looks pods up without a call and hears at once when one is
 * deleted, evicted, fails or stops being ready.
 */
export class WorkerPodWatch {
  private readonly informer: Informer<V1Pod> & ObjectCache<V1Pod>;
  private readonly listeners = new Set<PodListener>();
  /** Pods that were ready once: becoming unready after that counts as going away. */
  private readonly wereReady = new Set<string>();
  private started: Promise<void> | undefined;
  private stopped = false;

  constructor(
    kubeConfig: KubeConfig,
    core: CoreV1Api,
    private readonly namespace: string,
    private readonly log: (line: string) => void,
  ) {
    this.informer = makeInformer(
      kubeConfig,
      `/api/v1/namespaces/${namespace}/pods`,
      () => core.listNamespacedPod({ namespace, labelSelector: WORKER_SELECTOR }),
      WORKER_SELECTOR,
    );
    const changed = (pod: V1Pod) => {
      if (podReady(pod)) this.wereReady.add(nameOf(pod));
      for (const listener of this.listeners) listener(pod, false);
    };
    this.informer.on('add', changed);
    this.informer.on('update', changed);
    this.informer.on('delete', (pod) => {
      for (const listener of this.listeners) listener(pod, true);
      this.wereReady.delete(nameOf(pod));
    });
    this.informer.on('error', (error: unknown) => {
      if (this.stopped) return;
      this.log(`the watch of worker pods broke (${error instanceof Error ? error.message : String(error)}); listing again`);
      setTimeout(() => void this.informer.start().catch(() => undefined), 1_000).unref();
    });
  }

  /** Lists the pods once and keeps watching; resolves when the first list is in. */
  start(): Promise<void> {
    this.started ??= this.informer.start();
    return this.started;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.started) await this.informer.stop();
  }

  pod(name: string): V1Pod | undefined {
    return this.informer.get(name, this.namespace);
  }

  pods(): readonly V1Pod[] {
    return this.informer.list(this.namespace);
  }

  /** Why the pod can no longer serve its computer, or undefined while it can. */
  goneReason(pod: V1Pod): string | undefined {
    return podGoneReason(pod, this.wereReady.has(nameOf(pod)));
  }

  onChange(listener: PodListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the pod once `test` holds for it (or undefined once it is gone), within `timeoutMs`. */
  async until(name: string, test: (pod: V1Pod) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<V1Pod | undefined> {
    const now = this.pod(name);
    if (now && test(now)) return now;
    return new Promise<V1Pod | undefined>((resolve, reject) => {
      const done = (result: V1Pod | undefined, error?: Error) => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', aborted);
        if (error) reject(error);
        else resolve(result);
      };
      const aborted = () => done(undefined, signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      const timer = setTimeout(() => done(undefined, new PodWaitTimeoutError(name, timeoutMs)), timeoutMs);
      const unsubscribe = this.onChange((pod, gone) => {
        if (nameOf(pod) !== name) return;
        if (gone) done(undefined);
        else if (test(pod)) done(pod);
      });
      if (signal?.aborted) aborted();
      else signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /** Resolves once the pod is no longer there or its containers have all ended. */
  async untilEnded(name: string, timeoutMs: number): Promise<void> {
    if (!this.pod(name)) return;
    await this.until(name, containersEnded, timeoutMs);
  }
}

export class PodWaitTimeoutError extends Error {
  override readonly name = 'PodWaitTimeoutError';
  constructor(pod: string, timeoutMs: number) {
    super(`pod ${pod} did not get there within ${Math.round(timeoutMs / 1000)} s`);
  }
}

export function nameOf(pod: V1Pod): string {
  return pod.metadata?.name ?? '';
}
