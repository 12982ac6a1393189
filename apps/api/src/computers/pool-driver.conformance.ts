import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { workerRoutes, type RealtimeEvent, type RealtimeRoom } from '@lazyboy/contracts';
import type { ApiError } from '../common/api-error.js';
import type { ApiConfig } from '../config/api-config.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { RedisService } from '../redis/redis.service.js';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { PoolDriver, type ComputerSpec, type LostWorker, type WorkerBinding } from './pool-driver.js';
import { PowerLock } from './power-lock.js';
import { WorkerCallError, WorkerClient } from './worker-client.js';

/** What the suite needs of a driver besides the port itself. */
export interface PoolDriverHarness {
  config: ApiConfig;
  /** A new driver, one API replica's. Drivers of one harness share a host: one may adopt another's workers. */
  makeDriver(): PoolDriver;
  /** The API process of `driver` dies: its workers keep running, owned by nobody, until another adopts them. */
  crash(driver: PoolDriver): void | Promise<void>;
  /** Kills the worker serving `binding` at once (a crash, an evicted pod). */
  kill(binding: WorkerBinding): Promise<void>;
  /** Whether anything of the worker serving `binding` still runs. */
  running(binding: WorkerBinding): boolean | Promise<boolean>;
  /**
   * The driver's workers outlive its API process (pods): `shutdown()` stops none of them, and the suite
   * stops each computer itself. Otherwise shutdown stops the workers the process holds.
   */
  workersOutliveApi?: boolean;
}

class RecordingPublisher extends RealtimePublisher {
  readonly events: Array<{ rooms: readonly RealtimeRoom[]; event: RealtimeEvent }> = [];
  override async publish(rooms: readonly RealtimeRoom[], event: RealtimeEvent): Promise<void> {
    this.events.push({ rooms, event });
  }
}

/** Any driver, its provisioning held on request after the worker is up (a slow boot, on purpose). */
class GatedDriver extends PoolDriver {
  readonly name: PoolDriver['name'];
  provisions = 0;
  private gate: { reached: () => void; release: Promise<void> } | undefined;

  constructor(readonly inner: PoolDriver) {
    super();
    this.name = inner.name;
  }

  /** The next provision waits, once its worker is up, until the returned release is called. */
  holdNext(): { reached: Promise<WorkerBinding>; release: () => void } {
    let reached!: (binding: WorkerBinding) => void;
    let release!: () => void;
    const reachedPromise = new Promise<WorkerBinding>((resolve) => (reached = resolve));
    const releasePromise = new Promise<void>((resolve) => (release = resolve));
    let binding: WorkerBinding | undefined;
    this.gate = { reached: () => reached(binding!), release: releasePromise };
    this.gateBinding = (b) => (binding = b);
    return { reached: reachedPromise, release };
  }

  private gateBinding: (binding: WorkerBinding) => void = () => undefined;

  async provision(spec: ComputerSpec, signal?: AbortSignal): Promise<WorkerBinding> {
    this.provisions += 1;
    const binding = await this.inner.provision(spec, signal);
    const gate = this.gate;
    if (gate) {
      this.gate = undefined;
      this.gateBinding(binding);
      gate.reached();
      await gate.release;
    }
    return binding;
  }

  bind(binding: WorkerBinding, bindFence: bigint): Promise<WorkerBinding> {
    return this.inner.bind(binding, bindFence);
  }
  override suspend(binding: WorkerBinding): Promise<void> {
    return this.inner.suspend(binding);
  }
  override wake(binding: WorkerBinding): Promise<void> {
    return this.inner.wake(binding);
  }
  stop(binding: WorkerBinding): Promise<void> {
    return this.inner.stop(binding);
  }
  override health(binding: WorkerBinding): Promise<boolean> {
    return this.inner.health(binding);
  }
  adopt(binding: WorkerBinding): Promise<boolean> {
    return this.inner.adopt(binding);
  }
  release(binding: WorkerBinding): void {
    this.inner.release(binding);
  }
  onLost(listener: (lost: LostWorker) => void): () => void {
    return this.inner.onLost(listener);
  }
  shutdown(): Promise<WorkerBinding[]> {
    return this.inner.shutdown();
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function refusal(call: Promise<unknown>): Promise<WorkerCallError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkerCallError);
  return error as WorkerCallError;
}

/**
 * The pool driver port's contract, run against every driver (the fake and the local one today, the
 * cluster's next) through ComputersService replicas over one real Postgres and Redis: the life cycle,
 * two binders racing, a stale binder refused by the worker, a lost worker re-bound with a higher fence,
 * adoption after an API restart, a takeover during a suspend. No worker may be left running.
 */
export function describePoolDriverConformance(name: string, harness: PoolDriverHarness): void {
  describe(`pool driver conformance: ${name}`, () => {
    const { config } = harness;
    const prisma = new PrismaService(config);
    const redis = new RedisService(config);
    const repo = new ComputersRepository(prisma);
    const replicas: Array<{ driver: GatedDriver; service: ComputersService; publisher: RecordingPublisher }> = [];
    const bindings: WorkerBinding[] = [];

    /** One API replica: its own driver and ComputersService over the shared database and Redis. */
    const replica = () => {
      const driver = new GatedDriver(harness.makeDriver());
      const publisher = new RecordingPublisher();
      const service = new ComputersService(repo, driver, new PowerLock(redis), config, publisher);
      const made = { driver, service, publisher };
      replicas.push(made);
      return made;
    };
    const newComputer = async () => {
      const workspace = await prisma.workspace.create({ data: { name: 'pool', slug: `pool-${randomUUID()}` } });
      const agent = await prisma.agent.create({
        data: { workspaceId: workspace.id, name: 'p', avatarSeed: 'p', computerMode: 'private' },
      });
      return repo.ensureComputerForAgent({ id: agent.id, workspaceId: workspace.id, computerMode: 'private' });
    };
    const row = (id: string) => prisma.computer.findUniqueOrThrow({ where: { id } });
    /** Time passing without renewals: the binding's lease has run out. */
    const lapse = (id: string) =>
      prisma.computer.update({ where: { id }, data: { bindExpiresAt: new Date(Date.now() - 1_000) } });
    const seen = (binding: WorkerBinding) => {
      bindings.push(binding);
      return binding;
    };

    beforeAll(async () => {
      await redis.onModuleInit();
    });

    afterAll(async () => {
      for (const { driver, service } of replicas) {
        service.detach();
        await driver.shutdown();
      }
      const left: string[] = [];
      for (const b of bindings) if (await harness.running(b)) left.push(b.owner);
      await prisma.$disconnect();
      redis.client.disconnect();
      expect(left).toEqual([]);
    }, 60_000);

    it('provisions a bound worker, answers health, suspends, wakes, re-binds and stops it', async () => {
      const { driver } = replica();
      const computer = await newComputer();
      const binding = seen(
        await driver.provision({ computerId: computer.id, homeKey: computer.homeKey, screenLimit: 1, bindFence: 3n }),
      );
      expect(binding).toMatchObject({ computerId: computer.id, bindFence: 3n, endpoint: { bindFence: 3 } });
      expect(await driver.health(binding)).toBe(true);
      const worker = new WorkerClient(binding.endpoint);
      await driver.suspend(binding);
      expect((await worker.call(workerRoutes.listScreens, {})).suspended).toBe(true);
      await driver.wake(binding);
      expect((await worker.call(workerRoutes.listScreens, {})).suspended).toBe(false);

      // Bound with 3: a caller without the fence, or with a lower one, is refused before anything runs.
      const { bindFence: _dropped, ...unfenced } = binding.endpoint;
      expect(await refusal(new WorkerClient(unfenced).call(workerRoutes.suspend, {}))).toMatchObject({
        code: 'STALE_BINDER',
        status: 409,
      });
      expect(await refusal(new WorkerClient({ ...binding.endpoint, bindFence: 2 }).call(workerRoutes.suspend, {}))).toMatchObject(
        {
          code: 'STALE_BINDER',
        },
      );
      const rebound = await driver.bind(binding, 4n);
      expect(rebound.bindFence).toBe(4n);
      expect(await refusal(worker.call(workerRoutes.suspend, {}))).toMatchObject({ code: 'STALE_BINDER' });
      expect((await new WorkerClient(rebound.endpoint).call(workerRoutes.listScreens, {})).suspended).toBe(false);
      expect(await driver.health(rebound)).toBe(true);
      expect(await driver.health(binding)).toBe(false); // a stale binding is not a healthy one

      await driver.stop(rebound);
      expect(await driver.health(rebound)).toBe(false);
      expect(await harness.running(binding)).toBe(false);
    }, 90_000);

    it('boots once for two replicas asking at the same time', async () => {
      const a = replica();
      const b = replica();
      const computer = await newComputer();
      const [ra, rb] = await Promise.all([a.service.ensureRunning(computer.id), b.service.ensureRunning(computer.id)]);
      seen(ra.binding);
      expect(a.driver.provisions + b.driver.provisions).toBe(1);
      expect(rb.binding.owner).toBe(ra.binding.owner);
      expect(rb.binding.bindFence).toBe(ra.binding.bindFence);
      await a.service.stop(computer.id);
      expect(await harness.running(ra.binding)).toBe(false);
    }, 90_000);

    it('lets exactly one of two racing binders finish a boot; the loser stops its worker', async () => {
      const a = replica();
      const b = replica();
      const computer = await newComputer();
      const heldA = a.driver.holdNext();
      const bootA = a.service.ensureRunning(computer.id).then(
        () => undefined,
        (error: unknown) => error,
      );
      const lateBinding = seen(await heldA.reached);
      expect(await harness.running(lateBinding)).toBe(true);
      // A's API stalls past its boot lease: B takes the boot over (fence + 1) and finishes first.
      await lapse(computer.id);
      const won = await b.service.ensureRunning(computer.id);
      seen(won.binding);
      expect(won.binding.bindFence).toBe(lateBinding.bindFence + 1n);
      heldA.release();
      const lost = await bootA;
      expect((lost as ApiError).message).toMatch(/stopped while it booted/);
      expect(await harness.running(lateBinding)).toBe(false);
      expect(await row(computer.id)).toMatchObject({
        state: 'running',
        bindFence: won.binding.bindFence,
        bindOwner: won.binding.owner,
      });
      expect(await b.driver.health(won.binding)).toBe(true);
      await b.service.stop(computer.id);
    }, 120_000);

    it("refuses a stale binder's calls once another replica took the computer over", async () => {
      const a = replica();
      const b = replica();
      const computer = await newComputer();
      const first = await a.service.ensureRunning(computer.id);
      seen(first.binding);
      expect((await row(computer.id)).bindExpiresAt!.getTime()).toBeGreaterThan(Date.now());
      // A stops renewing (hung, cut off from the database) while it still holds the token.
      await lapse(computer.id);
      const taken = await b.service.ensureRunning(computer.id);
      expect(taken.binding.owner).toBe(first.binding.owner); // the same worker, adopted
      expect(taken.binding.bindFence).toBe(first.binding.bindFence + 1n);

      const stale = a.service.workerClient(first.binding);
      const refused = await refusal(stale.call(workerRoutes.setControl, { slot: 0, holder: 'user', fence: 5 }));
      expect(refused).toMatchObject({ code: 'STALE_BINDER', status: 409 });
      const screens = await b.service.workerClient(taken.binding).call(workerRoutes.listScreens, {});
      expect(screens.screens.find((s) => s.slot === 0)?.control.fence ?? 0).toBe(0); // nothing was done

      // A's next renewal finds the binding gone and lets the worker go without stopping it.
      await a.service.renewLeases();
      expect(a.service.heldBindings().has(computer.id)).toBe(false);
      expect(await b.driver.health(taken.binding)).toBe(true);
      await b.service.renewLeases();
      expect(b.service.heldBindings().get(computer.id)).toBe(taken.binding.bindFence);
      // A stopping now (its API shutting down) must not take B's worker with it.
      expect((await a.driver.shutdown()).map((x) => x.computerId)).not.toContain(computer.id);
      expect(await b.driver.health(taken.binding)).toBe(true);
      await b.service.stop(computer.id);
      expect(await harness.running(first.binding)).toBe(false);
    }, 90_000);

    it('stops a lost worker for its binding only and boots the next use with a higher fence', async () => {
      const a = replica();
      const computer = await newComputer();
      const first = await a.service.ensureRunning(computer.id);
      seen(first.binding);
      await harness.kill(first.binding);
      const stopped = await until('the lost worker to be recorded', async () => {
        const now = await row(computer.id);
        return now.state === 'stopped' ? now : undefined;
      });
      expect(stopped).toMatchObject({
        endpoint: null,
        bindOwner: null,
        bindExpiresAt: null,
        errorMessage: expect.stringMatching(/went away/),
      });
      // Published after the row is written (a read of it, then the event): waited for, not assumed.
      await until('the stopped computer to be published', async () =>
        a.publisher.events.some(
          (e) =>
            e.event.type === 'computer.updated' && e.event.computer.id === computer.id && e.event.computer.state === 'stopped',
        )
          ? true
          : undefined,
      );
      // A call still holding the old binding hears that the computer went away, not a bare network error.
      const late = await refusal(a.service.workerClient(first.binding).call(workerRoutes.listScreens, {}));
      expect(late.code).toBe('COMPUTER_LOST');
      expect(late.message).toMatch(/went away.*started again/s);

      const next = await a.service.ensureRunning(computer.id);
      seen(next.binding);
      expect(next.binding.bindFence).toBeGreaterThan(first.binding.bindFence);
      expect(next.binding.owner).not.toBe(first.binding.owner);
      // A late lost signal of the old binding does not touch the new one.
      await repo.markStopped(computer.id, 'late', { bindFence: first.binding.bindFence });
      expect((await row(computer.id)).state).toBe('running');
      await a.service.stop(computer.id);
      expect(await harness.running(next.binding)).toBe(false);
    }, 120_000);

    it('adopts the running worker after an API restart, found through the Computer row', async () => {
      const before = replica();
      const computer = await newComputer();
      const first = await before.service.ensureRunning(computer.id);
      seen(first.binding);
      // The API process dies: nothing stops its worker, nobody renews its lease.
      before.service.detach();
      await harness.crash(before.driver.inner);
      await lapse(computer.id);

      const after = replica();
      const adopted = await after.service.ensureRunning(computer.id);
      expect(adopted.binding.owner).toBe(first.binding.owner);
      expect(adopted.binding.bindFence).toBe(first.binding.bindFence + 1n);
      expect(after.service.heldBindings().get(computer.id)).toBe(adopted.binding.bindFence);
      expect(await refusal(new WorkerClient(first.binding.endpoint).call(workerRoutes.listScreens, {}))).toMatchObject({
        code: 'STALE_BINDER',
      });
      if (harness.workersOutliveApi) {
        // Its shutdown leaves the pod running (the next replica adopts it again), and any replica stops it.
        expect(await after.driver.shutdown()).toEqual([]);
        expect(await harness.running(first.binding)).toBe(true);
        await replica().service.stop(computer.id);
      } else {
        // The new process owns it now: its shutdown stops it.
        const stopped = await after.driver.shutdown();
        expect(stopped.map((b) => [b.computerId, b.bindFence])).toEqual([[computer.id, adopted.binding.bindFence]]);
      }
      expect(await harness.running(first.binding)).toBe(false);
    }, 120_000);

    it('serialises a takeover with a suspend: the computer ends consistent, worker and row alike', async () => {
      const a = replica();
      const b = replica();
      const computer = await newComputer();
      const first = await a.service.ensureRunning(computer.id);
      seen(first.binding);
      await lapse(computer.id);
      // Either order may win the power lock; whichever it is, the other sees what the first left.
      const [, taken] = await Promise.all([a.service.suspend(computer.id), b.service.ensureRunning(computer.id)]);
      const now = await row(computer.id);
      expect(now).toMatchObject({ bindFence: taken.binding.bindFence, bindOwner: first.binding.owner });
      expect(['running', 'suspended']).toContain(now.state);
      expect(taken.binding.bindFence).toBe(first.binding.bindFence + 1n);
      const onWorker = await b.service.workerClient(taken.binding).call(workerRoutes.listScreens, {});
      expect(onWorker.suspended).toBe(now.state === 'suspended');
      await a.service.renewLeases();
      await b.service.stop(computer.id);
      expect(await harness.running(first.binding)).toBe(false);
    }, 120_000);
  });
}
