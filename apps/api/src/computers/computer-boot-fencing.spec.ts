import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findFreeDisplayBase } from '@lazyboy/desktop';
import { repoRoot } from '@lazyboy/localstack';
import { ApiError } from '../common/api-error.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { RedisService } from '../redis/redis.service.js';
import { FakePoolDriver } from '../testing/fake-pool-driver.js';
import { testApiConfig } from '../testing/test-config.js';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { LocalPoolDriver } from './local-pool-driver.js';
import type { WorkerBinding } from './pool-driver.js';
import { PowerLock } from './power-lock.js';

// A boot is fenced: whoever stops the computer (or takes over a boot whose lease lapsed) while a worker is
// being provisioned wins, and the late worker is stopped instead of overwriting the row. Fences and locks
// run on the in-memory driver (the real protocol, no desktop); the display check on one real worker boot.

function xServerOn(display: number): string | undefined {
  return execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
    .split('\n')
    .find((line) => line.startsWith(`Xvfb :${display} `));
}

describe('computer boot fencing', () => {
  const config = testApiConfig({ TEAM_SCREEN_LIMIT: '1' });
  const prisma = new PrismaService(config);
  const redis = new RedisService(config);
  const repo = new ComputersRepository(prisma);
  const driver = new FakePoolDriver();
  const computers = new ComputersService(repo, driver, new PowerLock(redis), config);
  /** The next provision is held once its worker is up (a slow boot, on purpose). */
  const holdProvision = () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<WorkerBinding>((resolve) => {
      driver.beforeProvisioned = async (binding) => {
        driver.beforeProvisioned = undefined;
        resolve(binding);
        await released;
      };
    });
    return { reached, release };
  };

  const newAgent = async (computerMode: 'team' | 'private' = 'team') => {
    const workspace = await prisma.workspace.create({ data: { name: 'fencing', slug: `fencing-${randomUUID()}` } });
    const agent = await prisma.agent.create({
      data: { workspaceId: workspace.id, name: 'fenced', avatarSeed: 'f', computerMode },
    });
    return { id: agent.id, workspaceId: workspace.id, computerMode: agent.computerMode };
  };
  const newComputer = async () => computers.computerOf(await newAgent());

  beforeAll(async () => {
    await redis.onModuleInit();
  });

  afterAll(async () => {
    computers.detach();
    const left = driver.ownedComputers();
    await driver.shutdown();
    await prisma.$disconnect();
    redis.client.disconnect();
    expect(left).toEqual([]);
    expect(driver.host.alive()).toEqual([]);
  }, 30_000);

  it('lets only the boot holding the latest fence finish it', async () => {
    const { id } = await newComputer();
    const binding = { endpoint: 'http://127.0.0.1:1', tokenCipher: new Uint8Array(8), owner: 'local:test:1' };
    const now = new Date();
    const lease = new Date(now.getTime() + 30_000);

    const first = await repo.claimBoot(id, now, lease);
    expect(first).not.toBeNull();
    expect(await repo.claimBoot(id, now, lease)).toBeNull(); // someone is booting it, its lease runs
    // Once the boot's lease has lapsed (its API died), the next claim takes over.
    const second = await repo.claimBoot(id, new Date(lease.getTime() + 1), lease);
    expect(second).toBe(first! + 1n);

    expect(await repo.markRunning(id, first!, binding, lease)).toBe(false);
    expect(await repo.markError(id, first!, 'late failure')).toBe(false);
    expect(await prisma.computer.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'booting', endpoint: null });

    expect(await repo.markRunning(id, second!, binding, lease)).toBe(true);
    expect(await prisma.computer.findUniqueOrThrow({ where: { id } })).toMatchObject({
      state: 'running',
      bindFence: second,
      bindExpiresAt: lease,
    });
    // A takeover of a live lease is refused; of a lapsed one, only one of two wins.
    expect(await repo.takeOverBinding(id, second!, now, lease)).toBeNull();
    const later = new Date(lease.getTime() + 1);
    const [x, y] = await Promise.all([
      repo.takeOverBinding(id, second!, later, lease),
      repo.takeOverBinding(id, second!, later, lease),
    ]);
    expect([x, y].filter((f) => f !== null)).toEqual([second! + 1n]);
  });

  it('stops the worker of a boot that was stopped while it was being provisioned', async () => {
    const { id } = await newComputer();
    const held = holdProvision();
    const booting = computers.ensureRunning(id).then(
      () => undefined,
      (error: unknown) => error,
    );
    const late = await held.reached;
    expect(driver.workerOf(late)?.alive).toBe(true);

    await computers.stop(id); // the person (or the idle loop's stuck-boot reclaim) wins
    held.release();

    const error = await booting;
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toMatch(/stopped while it booted/);
    expect(await prisma.computer.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'stopped', endpoint: null });
    expect(driver.ownedComputers()).toEqual([]);
    expect(driver.workerOf(late)?.alive).toBe(false);
  });

  it('refuses to suspend or stop a computer a run works on, under the power lock', async () => {
    const agent = await newAgent('private');
    const { id } = await computers.computerOf(agent);
    const lease = new Date(Date.now() + 30_000);
    const fence = await repo.claimBoot(id, new Date(), lease);
    await repo.markRunning(
      id,
      fence!,
      { endpoint: 'http://127.0.0.1:1', tokenCipher: new Uint8Array(8), owner: 'local:test:1' },
      lease,
    );
    await prisma.run.create({ data: { workspaceId: agent.workspaceId, agentId: agent.id, status: 'running' } });

    await expect(computers.suspend(id)).rejects.toMatchObject({ code: 'CONFLICT', message: /agent is working/ });
    expect(await computers.suspend(id, new Date())).toBe(false); // the idle loop just leaves it
    await expect(computers.stop(id, { unlessBusy: true })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await prisma.computer.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'running' });
  });
});

describe('computer boot fencing on a real worker (local pool driver)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-boot-fencing-'));
  const config = testApiConfig({ LAZYBOY_HOMES_DIR: path.join(dir, 'homes'), TEAM_SCREEN_LIMIT: '1' });
  const prisma = new PrismaService(config);
  const redis = new RedisService(config);
  const repo = new ComputersRepository(prisma);
  const displayBaseFrom = findFreeDisplayBase(1, 1_000 + Number(process.env.JEST_WORKER_ID ?? 0) * 1_000 + 700);
  const driver = new LocalPoolDriver({
    workerScript: path.join(repoRoot, 'apps/worker/dist/main.js'),
    homesDir: path.join(dir, 'homes'),
    displayBaseFrom,
  });
  const computers = new ComputersService(repo, driver, new PowerLock(redis), config);
  const newAgent = async () => {
    const workspace = await prisma.workspace.create({ data: { name: 'fencing', slug: `fencing-${randomUUID()}` } });
    const agent = await prisma.agent.create({
      data: { workspaceId: workspace.id, name: 'fenced', avatarSeed: 'f', computerMode: 'team' },
    });
    return { id: agent.id, workspaceId: workspace.id, computerMode: agent.computerMode };
  };

  beforeAll(async () => {
    chmodSync(dir, 0o755);
    await redis.onModuleInit();
  });

  afterAll(async () => {
    computers.detach();
    const left = driver.workerPids();
    await driver.shutdown();
    await prisma.$disconnect();
    redis.client.disconnect();
    rmSync(dir, { recursive: true, force: true });
    expect(left).toEqual([]);
  }, 30_000);

  it("records the screen's real display, above the computer's display base", async () => {
    const agent = await newAgent();
    const { running, screen } = await computers.bootForAgent(agent);
    try {
      expect(screen.slot).toBe(0);
      expect(screen.display).toBeGreaterThan(displayBaseFrom);
      const onWorker = await computers.agentComputerView(agent);
      expect(onWorker.screen?.display).toBe(screen.display);
      await computers.suspend(running.computer.id);
      await computers.ensureRunning(running.computer.id);
    } finally {
      await computers.stop(running.computer.id);
    }
    expect(driver.workerPids()).toEqual([]);
    expect(xServerOn(screen.display)).toBeUndefined();
  }, 90_000);
});
