import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { ToolContext, ToolDefinition, ToolOutcome } from '@lazyboy/agent';
import { workerRoutes } from '@lazyboy/contracts';
import { computerTools, type ScreenProvider } from '../agent-tools/index.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { AuditService } from '../audit/audit.service.js';
import type { ApiConfig } from '../config/api-config.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { RedisService } from '../redis/redis.service.js';
import { FakeHost, FakePoolDriver } from '../testing/fake-pool-driver.js';
import { testApiConfig } from '../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { ComputerIdleLoop } from './computer-idle-loop.js';
import { ComputerRunScreens } from './computer-run-screens.js';
import { ComputersLifecycle } from './computers-lifecycle.js';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { PowerLock } from './power-lock.js';
import type { AcquiredScreen } from './run-screens.js';
import { ScreenControlService } from './screen-control.service.js';
import { sleep, until } from '../../../../test/support/index.js';

// What a run sees when its computer goes away or changes hands, on the in-memory driver (the real worker
// protocol and fencing, no desktop): a clear tool result, then the next call on a new worker.

describe('a lost or taken-over computer, as a run sees it', () => {
  // A database of its own: the idle loop and the start-up check look at every computer in it.
  let db: IsolatedDatabase;
  let config: ApiConfig;
  let prisma: PrismaService;
  let redis: RedisService;
  let repo: ComputersRepository;
  const host = new FakeHost();
  const replicas: Array<{ driver: FakePoolDriver; computers: ComputersService; screens: ComputerRunScreens }> = [];
  const replica = () => {
    const driver = new FakePoolDriver(host);
    const computers = new ComputersService(repo, driver, new PowerLock(redis), config);
    const made = { driver, computers, screens: new ComputerRunScreens(computers, repo) };
    replicas.push(made);
    return made;
  };

  const newRun = async () => {
    const workspace = await prisma.workspace.create({ data: { name: 'lost', slug: `lost-${randomUUID()}` } });
    const agent = await prisma.agent.create({
      data: { workspaceId: workspace.id, name: 'l', avatarSeed: 'l', computerMode: 'private' },
    });
    const run = await prisma.run.create({ data: { workspaceId: workspace.id, agentId: agent.id, status: 'running' } });
    return { workspaceId: workspace.id, agentId: agent.id, runId: run.id };
  };
  const acquire = (screens: ComputerRunScreens, run: Awaited<ReturnType<typeof newRun>>) =>
    screens.acquire({ ...run, onStep: () => undefined, signal: new AbortController().signal });
  const toolsOf = (held: AcquiredScreen) => {
    const provider: ScreenProvider = { get: async () => held };
    const tools = computerTools(provider, { outputPollMs: 50 });
    let calls = 0;
    return (name: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
      const tool: ToolDefinition = tools.find((t) => t.name === name)!;
      const ctx: ToolContext = {
        signal: new AbortController().signal,
        callId: `call-${++calls}`,
        background: () => 'job',
      };
      return tool.execute(tool.schema.parse(args), ctx);
    };
  };
  const row = (id: string) => prisma.computer.findUniqueOrThrow({ where: { id } });

  beforeAll(async () => {
    db = await createIsolatedDatabase();
    config = testApiConfig({ DATABASE_URL: db.url, TEAM_SCREEN_LIMIT: '2' });
    prisma = new PrismaService(config);
    redis = new RedisService(config);
    repo = new ComputersRepository(prisma);
    await redis.onModuleInit();
  });

  afterAll(async () => {
    for (const { driver, computers } of replicas) {
      computers.detach();
      await driver.shutdown();
    }
    await prisma.$disconnect();
    redis.client.disconnect();
    await db.drop();
    expect(host.alive()).toEqual([]);
  });

  it('fails the call in flight when the worker dies, saying so, and runs the next call on a new worker', async () => {
    const { driver, screens, computers } = replica();
    const run = await newRun();
    const held = await acquire(screens, run);
    const first = await row(held.computerId);
    const use = toolsOf(held);
    const worker = driver.workerOf({ owner: first.bindOwner! })!;

    const waiting = use('wait', { seconds: 30 });
    await until('the wait to reach the worker', async () =>
      worker.admitted.includes(workerRoutes.wait.path) ? true : undefined,
    );
    await worker.kill();
    const outcome = await waiting;
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/^COMPUTER_LOST: the computer went away while this call ran/);
    expect(outcome.content).toMatch(/started again on the next call/);
    expect(await row(held.computerId)).toMatchObject({ state: 'stopped', endpoint: null });

    // The next call boots a new worker (higher bind fence) and keeps the run's own execution fence.
    const next = await use('shell', { command: 'echo back' });
    expect(next).toEqual({ content: 'exit 0\nback\n', isError: false });
    const now = await row(held.computerId);
    expect(now.state).toBe('running');
    expect(now.bindFence).toBeGreaterThan(first.bindFence);
    expect(now.bindOwner).not.toBe(first.bindOwner);
    const onWorker = await held.worker.call(workerRoutes.listScreens, {});
    expect(onWorker.screens.find((s) => s.slot === held.slot)?.executionFence).toBe(held.fence);
    expect(host.alive().length).toBe(1);
    await computers.stop(held.computerId);
  });

  it('ends the call in flight as soon as the driver reports its worker gone, though the connection stays open', async () => {
    const { driver, screens, computers } = replica();
    const run = await newRun();
    const held = await acquire(screens, run);
    const first = await row(held.computerId);
    const use = toolsOf(held);
    const worker = driver.workerOf({ owner: first.bindOwner! })!;

    // A minute's wait, which the client would give 90 s: longer than this test may take.
    const waiting = use('wait', { seconds: 60 });
    await until('the wait to reach the worker', async () =>
      worker.admitted.includes(workerRoutes.wait.path) ? true : undefined,
    );
    worker.vanish();
    const outcome = await waiting;
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/^COMPUTER_LOST: the computer went away while this call ran/);
    expect(await row(held.computerId)).toMatchObject({ state: 'stopped', endpoint: null });
    // And the run goes on, on a new worker.
    expect(await use('shell', { command: 'echo back' })).toEqual({ content: 'exit 0\nback\n', isError: false });
    await computers.stop(held.computerId);
  });

  it('runs a call on a new worker at once when the worker went away before the call (nothing was sent)', async () => {
    const { driver, screens, computers } = replica();
    const held = await acquire(screens, await newRun());
    const first = await row(held.computerId);
    await driver.workerOf({ owner: first.bindOwner! })!.kill();
    await until('the lost worker to be recorded', async () =>
      (await row(held.computerId)).state === 'stopped' ? true : undefined,
    );

    const use = toolsOf(held);
    expect(await use('shell', { command: 'echo on-the-new-one' })).toEqual({
      content: 'exit 0\non-the-new-one\n',
      isError: false,
    });
    const now = await row(held.computerId);
    expect(now).toMatchObject({ state: 'running' });
    expect(now.bindFence).toBeGreaterThan(first.bindFence);
    const worker = driver.workerOf({ owner: now.bindOwner! })!;
    expect(worker.admitted.filter((p) => p === workerRoutes.shellRun.path)).toHaveLength(1);
    await computers.stop(held.computerId);
  });

  it("follows a takeover: the stale replica's run is refused once by the worker, then goes on with the new fence", async () => {
    const a = replica();
    const b = replica();
    const run = await newRun();
    const held = await acquire(a.screens, run);
    const before = await row(held.computerId);
    await prisma.computer.update({ where: { id: held.computerId }, data: { bindExpiresAt: new Date(Date.now() - 1_000) } });
    const taken = await b.computers.ensureRunning(held.computerId);
    expect(taken.binding.bindFence).toBe(before.bindFence + 1n);

    const worker = b.driver.workerOf(taken.binding)!;
    const admittedBefore = worker.admitted.length;
    const use = toolsOf(held);
    expect(await use('shell', { command: 'echo still-here' })).toEqual({ content: 'exit 0\nstill-here\n', isError: false });
    // Refused first (nothing ran), then once with the new binding: the command ran exactly once.
    expect(worker.admitted.slice(admittedBefore).filter((p) => p === workerRoutes.shellRun.path)).toHaveLength(1);
    expect(held.worker.endpoint.bindFence).toBe(Number(taken.binding.bindFence));
    await b.computers.stop(held.computerId);
  });

  it('the idle loop takes over the worker of a replica that died, and forgets one that is gone', async () => {
    const dead = replica();
    const alive = replica();
    const control = new ScreenControlService(alive.computers, repo, new AuditService(new AuditRepository(prisma)), config);
    const loop = new ComputerIdleLoop(alive.computers, control, repo, alive.driver, config);
    const orphaned = await dead.computers.ensureRunning(
      (await repo.ensureComputerForAgent({ ...(await agentOf()), computerMode: 'private' })).id,
    );
    const gone = await dead.computers.ensureRunning(
      (await repo.ensureComputerForAgent({ ...(await agentOf()), computerMode: 'private' })).id,
    );
    dead.computers.detach();
    dead.driver.orphanAll();
    await dead.driver.workerOf(gone.binding)!.kill();
    for (const id of [orphaned.computer.id, gone.computer.id]) {
      await prisma.computer.update({ where: { id }, data: { bindExpiresAt: new Date(Date.now() - 1_000) } });
    }

    await loop.tick();
    expect(await row(orphaned.computer.id)).toMatchObject({
      state: 'running',
      bindFence: orphaned.binding.bindFence + 1n,
      bindOwner: orphaned.binding.owner,
    });
    expect(alive.computers.heldBindings().get(orphaned.computer.id)).toBe(orphaned.binding.bindFence + 1n);
    expect(alive.driver.ownedComputers()).toContain(orphaned.computer.id);
    expect(await row(gone.computer.id)).toMatchObject({ state: 'stopped', endpoint: null });

    // The new holder renews the lease it took.
    const lease = (await row(orphaned.computer.id)).bindExpiresAt!;
    await sleep(5);
    await alive.computers.renewLeases();
    expect((await row(orphaned.computer.id)).bindExpiresAt!.getTime()).toBeGreaterThan(lease.getTime());
    await alive.computers.stop(orphaned.computer.id);
  });

  it('at start-up takes over the worker of a replica that died, and leaves one whose binder still renews', async () => {
    const dead = replica();
    const live = replica();
    const restarted = replica();
    const orphaned = await dead.computers.ensureRunning(
      (await repo.ensureComputerForAgent({ ...(await agentOf()), computerMode: 'private' })).id,
    );
    const kept = await live.computers.ensureRunning(
      (await repo.ensureComputerForAgent({ ...(await agentOf()), computerMode: 'private' })).id,
    );
    dead.computers.detach();
    dead.driver.orphanAll();
    await prisma.computer.update({ where: { id: orphaned.computer.id }, data: { bindExpiresAt: new Date(Date.now() - 1_000) } });

    // Only what reconcile uses: the idle loop and the leader election are not started here.
    const lifecycle = new ComputersLifecycle(
      restarted.computers,
      repo,
      restarted.driver,
      undefined as never,
      undefined as never,
      config,
    );
    await lifecycle.reconcile();
    expect(await row(orphaned.computer.id)).toMatchObject({ state: 'running', bindFence: orphaned.binding.bindFence + 1n });
    expect(restarted.driver.ownedComputers()).toContain(orphaned.computer.id);
    expect(await row(kept.computer.id)).toMatchObject({ state: 'running', bindFence: kept.binding.bindFence });
    expect(restarted.driver.ownedComputers()).not.toContain(kept.computer.id);
    await restarted.computers.stop(orphaned.computer.id);
    await live.computers.stop(kept.computer.id);
  });

  const agentOf = async () => {
    const workspace = await prisma.workspace.create({ data: { name: 'idle', slug: `idle-${randomUUID()}` } });
    const agent = await prisma.agent.create({
      data: { workspaceId: workspace.id, name: 'i', avatarSeed: 'i', computerMode: 'private' },
    });
    return { id: agent.id, workspaceId: workspace.id };
  };
});
