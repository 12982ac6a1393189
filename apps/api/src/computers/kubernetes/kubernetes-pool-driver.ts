import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import {
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1PersistentVolumeClaim,
  type V1Pod,
} from '@kubernetes/client-node';
import { workerRoutes } from '@lazyboy/contracts';
import { PoolDriver, type ComputerSpec, type LostWorker, type WorkerBinding } from '../pool-driver.js';
import { WorkerCallError, WorkerClient } from '../worker-client.js';
import { describeApiError, isNotFound } from './api-errors.js';
import { ComputerLeases } from './computer-leases.js';
import { freshName, WarmPool } from './warm-pool.js';
import { nameOf, WorkerPodWatch } from './worker-pod-watch.js';
import {
  containersEnded,
  homeClaim,
  NOT_STARTING,
  labels,
  ownerLabels,
  podReady,
  WORKER_PORT,
  WORKER_SELECTOR,
  workerPod,
  type Owner,
  type WorkerPodTemplate,
} from './worker-pods.js';

export interface KubernetesPoolDriverOptions {
  kubeConfig: KubeConfig;
  template: WorkerPodTemplate;
  /** Ready pods kept unassigned for computers without a home yet (0: every boot starts a pod). */
  warmPods: number;
  /** The Secret's token the pods get: it opens their assign route alone. */
  poolToken: string;
  /** This API replica, as the holder of its computers' Leases. */
  replicaId: string;
  /** The binding lease (`LAZYBOY_COMPUTER_BIND_LEASE_MS`): the Leases last as long, renewed every third. */
  leaseDurationMs: number;
  /** How long a pod may take from creation to Ready (image pull, volume, desktop). Default 120 s. */
  bootTimeoutMs?: number;
}

/** A pod this replica drives, and the binding it serves. */
interface HeldPod {
  podName: string;
  binding: WorkerBinding;
}

/** A deleted pod's grace (10 s, the worker needs ~5) and the kubelet's round trip until its containers end. */
const POD_GONE_TIMEOUT_MS = 40_000;

/**
 * The cluster pool (ARCHITECTURE.md "Pool drivers"): each computer is a worker pod in one namespace, its
 * home a PersistentVolumeClaim that outlives every pod. A computer without a home takes a ready pod from
 * the warm pool and keeps that pod's fresh volume as its home; a computer with one starts a pod on it.
 * Either way the pod is then assigned the computer over its control API (the pool token, a fresh control
 * token, the bind fence) and this replica takes the computer's Lease. Pods outlive the API process: a
 * replica that restarts, or another one, adopts them through the Computer row; the watch of worker pods
 * tells the computers service when one is deleted, evicted or fails.
 */
export class KubernetesPoolDriver extends PoolDriver {
  readonly name = 'kubernetes' as const;
  private readonly logger = new Logger('KubernetesPoolDriver');
  private readonly core: CoreV1Api;
  private readonly watch: WorkerPodWatch;
  private readonly warmPool: WarmPool;
  private readonly leases: ComputerLeases;
  private readonly held = new Map<string, HeldPod>();
  private readonly lostListeners = new Set<(lost: LostWorker) => void>();
  private readonly namespace: string;
  private started: Promise<void> | undefined;
  private renewals: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: KubernetesPoolDriverOptions) {
    super();
    this.namespace = options.template.namespace;
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    const log = (line: string) => this.logger.warn(line);
    this.watch = new WorkerPodWatch(options.kubeConfig, this.core, this.namespace, log);
    this.warmPool = new WarmPool(this.core, this.watch, options.template, options.warmPods, log);
    this.leases = new ComputerLeases(
      options.kubeConfig.makeApiClient(CoordinationV1Api),
      this.namespace,
      options.replicaId,
      options.leaseDurationMs,
    );
    this.watch.onChange((pod, gone) => this.podChanged(pod, gone));
  }

  /** Lists the worker pods, keeps watching them and fills the warm pool; resolves once the first list is in. */
  start(): Promise<void> {
    this.started ??= this.watch.start().then(() => {
      this.warmPool.refillSoon();
      this.renewals = setInterval(() => void this.renewLeases(), Math.max(1_000, this.options.leaseDurationMs / 3));
      this.renewals.unref();
    });
    return this.started;
  }

  async provision(spec: ComputerSpec, signal?: AbortSignal): Promise<WorkerBinding> {
    if (this.closed) throw new Error('the API is shutting down');
    await this.start();
    const owner: Owner = { computerId: spec.computerId, workspaceId: spec.workspaceId };
    const home = await this.homeOf(spec.homeKey);
    // A computer with no home yet takes a warm pod and keeps its fresh volume; one refused by its worker
    // (assigned already: someone reached it before us) is deleted and the boot starts its own pod.
    if (!home) {
      const taken = await this.warmPool.take(owner);
      if (taken) {
        await this.labelHome(taken.claimName, spec.homeKey, owner);
        try {
          return await this.assign(spec, nameOf(taken.pod), signal);
        } catch (error) {
          if (!(error instanceof WorkerCallError && error.code === 'ALREADY_ASSIGNED')) throw error;
          this.logger.warn(`warm pod ${nameOf(taken.pod)} was assigned already by someone else; starting a pod instead`);
        }
        return this.coldStart(spec, taken.claimName, owner, signal);
      }
    }
    let claimName = home?.metadata?.name;
    if (!claimName) {
      claimName = freshName('lazyboy-home');
      await this.core.createNamespacedPersistentVolumeClaim({
        namespace: this.namespace,
        body: homeClaim(this.options.template, claimName, spec.homeKey, owner),
      });
    }
    return this.coldStart(spec, claimName, owner, signal);
  }

  async bind(binding: WorkerBinding, bindFence: bigint): Promise<WorkerBinding> {
    const bound = await this.fenceWorker(binding, bindFence);
    await this.leases.acquire(binding.computerId, bindFence);
    const known = this.held.get(binding.computerId);
    if (known && known.binding.owner === binding.owner) known.binding = bound;
    return bound;
  }

  /** Deletes the pod (its worker stops the desktop on SIGTERM) and waits until it is gone; the home stays. */
  async stop(binding: WorkerBinding): Promise<void> {
    const podName = this.podNameOf(binding);
    if (this.held.get(binding.computerId)?.binding.owner === binding.owner) this.held.delete(binding.computerId);
    if (podName) await this.deletePod(podName);
    await this.leases.release(binding.computerId).catch((error: unknown) => {
      this.logger.warn(`ending the Lease of ${binding.computerId} failed: ${describeApiError(error)}`);
    });
  }

  /** A pod of ours (this namespace, this computer's label) that is not being deleted is taken over. */
  async adopt(binding: WorkerBinding): Promise<boolean> {
    if (this.closed) return false;
    if (this.held.get(binding.computerId)?.binding.owner === binding.owner) return true;
    await this.start();
    const podName = this.podNameOf(binding);
    const pod = podName ? this.watch.pod(podName) : undefined;
    if (!pod || pod.metadata?.labels?.[labels.computer] !== binding.computerId || this.watch.goneReason(pod)) return false;
    if (!podReady(pod)) return false;
    this.held.set(binding.computerId, { podName: nameOf(pod), binding });
    return true;
  }

  release(binding: WorkerBinding): void {
    if (this.held.get(binding.computerId)?.binding.owner === binding.owner) this.held.delete(binding.computerId);
  }

  onLost(listener: (lost: LostWorker) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Stops watching and renewing; the pods outlive this process (their Leases lapse, another replica adopts them). */
  async shutdown(): Promise<WorkerBinding[]> {
    this.closed = true;
    clearInterval(this.renewals);
    this.warmPool.close();
    this.held.clear();
    await this.warmPool.settled();
    await this.watch.stop();
    return [];
  }

  /** Fills the warm pool and waits for it (tests and the benchmark start from a full pool). */
  async warmUp(timeoutMs = 120_000): Promise<void> {
    await this.start();
    this.warmPool.refillSoon();
    await this.warmPool.settled();
    const deadline = Date.now() + timeoutMs;
    while (this.warmPool.ready().length < this.options.warmPods) {
      if (Date.now() > deadline) throw new Error(`the warm pool did not fill within ${Math.round(timeoutMs / 1000)} s`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  // ----------------------------------------------------------------------------------------- inside

  /** Starts a pod for the computer on its home volume and assigns it. */
  private async coldStart(spec: ComputerSpec, claimName: string, owner: Owner, signal?: AbortSignal): Promise<WorkerBinding> {
    const podName = freshName('lazyboy-computer');
    await this.core.createNamespacedPod({
      namespace: this.namespace,
      body: workerPod(this.options.template, podName, claimName, owner),
    });
    return this.assign(spec, podName, signal);
  }

  /**
   * Waits for the pod to be Ready, assigns it the computer with a fresh control token and the boot's
   * fence, and takes the computer's Lease. A pod that fails on the way is deleted.
   */
  private async assign(spec: ComputerSpec, podName: string, signal?: AbortSignal): Promise<WorkerBinding> {
    try {
      const pod = await this.untilReady(podName, signal);
      const endpoint = { baseUrl: `http://${pod.status!.podIP!}:${WORKER_PORT}`, token: this.options.poolToken };
      const controlToken = randomBytes(32).toString('base64url');
      await new WorkerClient(endpoint).call(
        workerRoutes.assign,
        {
          computerId: spec.computerId,
          controlToken,
          bindFence: Number(spec.bindFence),
          screenLimit: spec.screenLimit,
        },
        { timeoutMs: 10_000, ...(signal ? { signal } : {}) },
      );
      const binding: WorkerBinding = {
        computerId: spec.computerId,
        endpoint: { baseUrl: endpoint.baseUrl, token: controlToken, bindFence: Number(spec.bindFence) },
        owner: `k8s:${this.namespace}/${podName}`,
        bindFence: spec.bindFence,
      };
      await this.leases.acquire(spec.computerId, spec.bindFence);
      if (this.closed) throw new Error('the API is shutting down');
      this.held.set(spec.computerId, { podName, binding });
      return binding;
    } catch (error) {
      await this.deletePod(podName).catch((e: unknown) => this.logger.warn(`deleting pod ${podName}: ${describeApiError(e)}`));
      throw error instanceof WorkerCallError ? error : new Error(describeApiError(error));
    }
  }

  private async untilReady(podName: string, signal?: AbortSignal): Promise<V1Pod> {
    const timeoutMs = this.options.bootTimeoutMs ?? 120_000;
    const pod = await this.watch.until(podName, (p) => podReady(p) || stuckReason(p) !== undefined, timeoutMs, signal);
    if (!pod) throw new Error(`pod ${podName} went away while it started`);
    const stuck = stuckReason(pod);
    if (stuck) throw new Error(`pod ${podName} cannot start: ${stuck}`);
    if (!pod.status?.podIP) throw new Error(`pod ${podName} is ready without an address`);
    return pod;
  }

  /** The computer's home volume, found by its home key. */
  private async homeOf(homeKey: string): Promise<V1PersistentVolumeClaim | undefined> {
    const found = await this.core.listNamespacedPersistentVolumeClaim({
      namespace: this.namespace,
      labelSelector: `${WORKER_SELECTOR},${labels.homeKey}=${homeKey}`,
    });
    return found.items.find((claim) => !claim.metadata?.deletionTimestamp);
  }

  /** The warm pod's fresh volume becomes the computer's home. */
  private async labelHome(claimName: string, homeKey: string, owner: Owner): Promise<void> {
    await this.core.patchNamespacedPersistentVolumeClaim(
      {
        name: claimName,
        namespace: this.namespace,
        body: { metadata: { labels: { [labels.state]: 'home', [labels.homeKey]: homeKey, ...ownerLabels(owner) } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  /** Deletes a pod and waits until its containers have ended (or it is gone). */
  private async deletePod(podName: string): Promise<void> {
    try {
      await this.core.deleteNamespacedPod({ name: podName, namespace: this.namespace });
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    if (this.started && !this.closed) {
      await this.watch.untilEnded(podName, POD_GONE_TIMEOUT_MS);
      return;
    }
    // Without the watch (after shutdown): ask until it has ended.
    const deadline = Date.now() + POD_GONE_TIMEOUT_MS;
    while (Date.now() < deadline) {
      try {
        if (containersEnded(await this.core.readNamespacedPod({ name: podName, namespace: this.namespace }))) return;
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`pod ${podName} was still running ${POD_GONE_TIMEOUT_MS / 1000} s after it was deleted`);
  }

  /** A held pod went away (deleted, evicted, failed, unready): the service hears which binding it served. */
  private podChanged(pod: V1Pod, gone: boolean): void {
    const computerId = pod.metadata?.labels?.[labels.computer];
    if (!computerId) return;
    const held = this.held.get(computerId);
    if (!held || held.podName !== nameOf(pod)) return;
    const reason = gone ? 'its pod was deleted' : this.watch.goneReason(pod);
    if (!reason) return;
    this.held.delete(computerId);
    this.logger.warn(`the worker of computer ${computerId} (pod ${held.podName}) went away: ${reason}`);
    // A failed or unready pod serves nobody any more: it goes (its home stays).
    if (!pod.metadata?.deletionTimestamp && !gone) {
      void this.core.deleteNamespacedPod({ name: held.podName, namespace: this.namespace }).catch(() => undefined);
    }
    void this.leases.release(computerId).catch(() => undefined);
    const lost: LostWorker = { computerId, owner: held.binding.owner, bindFence: held.binding.bindFence, reason };
    for (const listener of this.lostListeners) listener(lost);
  }

  /** The cluster half of the bindings this replica holds; a Lease another replica holds now is let go. */
  private async renewLeases(): Promise<void> {
    for (const [computerId, held] of [...this.held]) {
      try {
        if (!(await this.leases.renew(computerId)) && this.held.get(computerId) === held) {
          this.logger.warn(`computer ${computerId}: another replica holds its Lease now; letting its pod go`);
          this.held.delete(computerId);
        }
      } catch (error) {
        this.logger.warn(`renewing the Lease of ${computerId} failed: ${describeApiError(error)}`);
      }
    }
  }

  /** The pod named by a binding of this driver in this namespace. */
  private podNameOf(binding: WorkerBinding): string | undefined {
    const match = /^k8s:([^/]+)\/(.+)$/.exec(binding.owner);
    return match && match[1] === this.namespace ? match[2] : undefined;
  }
}

/** Why a pod will not become Ready by itself (its image cannot be pulled, its container keeps failing). */
function stuckReason(pod: V1Pod): string | undefined {
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return `it ended (${pod.status?.reason ?? phase})`;
  for (const status of pod.status?.containerStatuses ?? []) {
    const waiting = status.state?.waiting;
    if (waiting?.reason && NOT_STARTING.has(waiting.reason) && !passingConfigError(waiting.reason, waiting.message)) {
      return `${waiting.reason}${waiting.message ? `: ${waiting.message.slice(0, 200)}` : ''}`;
    }
    const ended = status.state?.terminated;
    if (ended) return `its container ended (${ended.reason ?? `exit code ${ended.exitCode}`})`;
  }
  return undefined;
}

/**
 * The kubelet's "failed to sync secret cache" right after a node starts passes by itself; a Secret or
 * ConfigMap that is missing does not (someone must create it).
 */
function passingConfigError(reason: string, message: string | undefined): boolean {
  return reason === 'CreateContainerConfigError' && !/not found|couldn't find key/i.test(message ?? '');
}
