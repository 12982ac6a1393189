import { randomUUID } from 'node:crypto';
import { workerRoutes } from '@lazyboy/contracts';
import { PoolDriver, type ComputerSpec, type LostWorker, type WorkerBinding } from '../computers/pool-driver.js';
import { WorkerClient } from '../computers/worker-client.js';
import { FakeWorker } from './fake-worker.js';

/** The machines the fake drivers share (like one host's process table): the workers alive, by owner. */
export class FakeHost {
  readonly workers = new Map<string, FakeWorker>();

  alive(): FakeWorker[] {
    return [...this.workers.values()].filter((w) => w.alive);
  }
}

interface Owned {
  worker: FakeWorker;
  binding: WorkerBinding;
}

/**
 * A pool driver whose workers are FakeWorkers in this process (see fake-worker.ts): the real control
 * protocol over HTTP, the real WorkerClient and fencing, no desktop. Drivers sharing a FakeHost stand for
 * API replicas on one host: any of them may adopt a worker another started (as the local driver may in one
 * process). Passes pool-driver.conformance.ts like the real drivers.
 */
export class FakePoolDriver extends PoolDriver {
  readonly name = 'fake' as const;
  private readonly owned = new Map<string, Owned>();
  private readonly lostListeners = new Set<(lost: LostWorker) => void>();
  private closed = false;
  /** Provisions in flight may be held by a test (a slow boot, on purpose). */
  beforeProvisioned?: (binding: WorkerBinding) => Promise<void>;

  constructor(readonly host = new FakeHost()) {
    super();
  }

  async provision(spec: ComputerSpec): Promise<WorkerBinding> {
    if (this.closed) throw new Error('the API is shutting down');
    const running = this.owned.get(spec.computerId);
    if (running?.worker.alive) throw new Error(`computer ${spec.computerId} already has a worker; stop it first`);
    const worker = new FakeWorker({ computerId: spec.computerId, screenLimit: spec.screenLimit });
    await worker.listen();
    const owner = `fake:${randomUUID()}`;
    this.host.workers.set(owner, worker);
    const binding: WorkerBinding = {
      computerId: spec.computerId,
      endpoint: { baseUrl: worker.baseUrl, token: worker.token, bindFence: Number(spec.bindFence) },
      owner,
      bindFence: spec.bindFence,
    };
    this.own(worker, binding);
    try {
      await new WorkerClient(binding.endpoint).call(workerRoutes.bind, { bindFence: Number(spec.bindFence) });
      await this.beforeProvisioned?.(binding);
      if (this.closed) throw new Error('the API is shutting down');
    } catch (error) {
      this.owned.delete(spec.computerId);
      await worker.stop();
      throw error;
    }
    return binding;
  }

  async bind(binding: WorkerBinding, bindFence: bigint): Promise<WorkerBinding> {
    const bound = await this.fenceWorker(binding, bindFence);
    const known = this.owned.get(binding.computerId);
    if (known?.binding.owner === binding.owner) known.binding = bound;
    return bound;
  }

  async stop(binding: WorkerBinding): Promise<void> {
    if (this.owned.get(binding.computerId)?.binding.owner === binding.owner) this.owned.delete(binding.computerId);
    await this.host.workers.get(binding.owner)?.stop();
  }

  async adopt(binding: WorkerBinding): Promise<boolean> {
    if (this.owned.get(binding.computerId)?.binding.owner === binding.owner) return true;
    const worker = this.host.workers.get(binding.owner);
    if (!worker?.alive) return false;
    this.own(worker, binding);
    return true;
  }

  release(binding: WorkerBinding): void {
    if (this.owned.get(binding.computerId)?.binding.owner === binding.owner) this.owned.delete(binding.computerId);
  }

  onLost(listener: (lost: LostWorker) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  async shutdown(): Promise<WorkerBinding[]> {
    this.closed = true;
    const owned = [...this.owned.values()];
    this.owned.clear();
    await Promise.all(owned.map((o) => o.worker.stop()));
    return owned.map((o) => o.binding);
  }

  /** This API process dies: its workers keep running, owned by nobody, until another adopts them. */
  orphanAll(): void {
    this.closed = true;
    this.owned.clear();
  }

  /** The worker currently serving `binding`'s owner, for tests. */
  workerOf(binding: { owner: string }): FakeWorker | undefined {
    return this.host.workers.get(binding.owner);
  }

  /** Computers this driver runs a worker for. */
  ownedComputers(): string[] {
    return [...this.owned.keys()];
  }

  private own(worker: FakeWorker, binding: WorkerBinding): void {
    const owned: Owned = { worker, binding };
    this.owned.set(binding.computerId, owned);
    void worker.exited.then(() => {
      if (this.owned.get(binding.computerId) !== owned) return; // stopped, released or replaced: not lost
      this.owned.delete(binding.computerId);
      const lost: LostWorker = {
        computerId: binding.computerId,
        owner: binding.owner,
        bindFence: owned.binding.bindFence,
        reason: 'its process exited',
      };
      for (const listener of this.lostListeners) listener(lost);
    });
  }
}
