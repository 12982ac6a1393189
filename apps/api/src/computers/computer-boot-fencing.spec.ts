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
import { testApiConfig } from '../testing/test-config.js';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { LocalPoolDriver } from './local-pool-driver.js';
import type { ComputerSpec, WorkerBinding } from './pool-driver.js';
import { PowerLock } from './power-lock.js';

// A boot is fenced: whoever stops the computer (or takes over a stuck boot) while a worker is being
// provisioned wins, and the late worker is stopped instead of overwriting the row. One real worker boot.

/** A real local driver whose provisioning can be held after the worker is up (a slow boot, on purpose). */
class HeldDriver extends LocalPoolDriver {
  hold = true;
  provisioned?: WorkerBinding;
  private release?: () => void;
  private readonly reached: Promise<void>;
  private reach!: () => void;

  constructor(options: ConstructorParameters<typeof LocalPoolDriver>[0]) {
    super(options);
    this.reached = new Promise((resolve) => (this.reach = resolve));
  }

  override async provision(spec: ComputerSpec, signal?: AbortSignal): Promise<WorkerBinding> {
    const binding = await super.provision(spec, signal);
    if (!this.hold) return binding;
    this.provisioned = binding;
    this.reach();
    await new Promise<void>((resolve) => (this.release = resolve));
    return binding;
  }

  async provisionedButHeld(): Promise<WorkerBinding> {
    await this.reached;
    return this.provisioned!;
  }

  finishProvisioning(): void {
    this.release?.();
  }
}

function xServerOn(display: number): string | undefined {
  return execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
    .split('\n')
    .find((line) => line.startsWith(`Xvfb :${display} `));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('computer boot fencing', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-boot-fencing-'));
  const config = testApiConfig({ LAZYBOY_HOMES_DIR: path.join(dir, 'homes'), TEAM_SCREEN_LIMIT: '1' });
  const prisma = new PrismaService(config);
  const redis = new RedisService(config);
  const repo = new ComputersRepository(prisma);
  const displayBaseFrom = findFreeDisplayBase(1, 1_000 + Number(process.env.JEST_WORKER_ID ?? 0) * 1_000 + 700);
  const driver = new HeldDriver({
    workerScript: path.join(repoRoot, 'apps/worker/dist/main.js'),
    homesDir: path.join(dir, 'homes'),
    displayBaseFrom,
  });
  const computers = new ComputersService(repo, driver, new PowerLock(redis), config);

  const newBot = async (computerMode: 'team' | 'private' = 'team') => {
    const workspace = await prisma.workspace.create({ data: { name: 'fencing', slug: `fencing-${randomUUID()}` } });
    const bot = await prisma.bot.create({ data: { workspaceId: workspace.id, name: 'fenced', avatarSeed: 'f', computerMode } });
    return { id: bot.id, workspaceId: workspace.id, computerMode: bot.computerMode };
  };
  const newComputer = async () => computers.computerOf(await newBot());

  beforeAll(async () => {
    chmodSync(dir, 0o755);
    await redis.onModuleInit();
  });

  afterAll(async () => {
    const left = driver.workerPids();
    await driver.shutdown();
    await prisma.$disconnect();
    redis.client.disconnect();
    rmSync(dir, { recursive: true, force: true });
    expect(left).toEqual([]);
  }, 30_000);

  it('lets only the boot holding the latest fence finish it', async () => {
    const { id } = await newComputer();
    const binding = { endpoint: 'http://127.0.0.1:1', tokenCipher: new Uint8Array(8), owner: 'local:test:1' };
    const stuck = new Date(Date.now() + 1_000); // every boot counts as stuck: the second claim takes over

    const first = await repo.claimBoot(id, new Date(0));
    expect(first).not.toBeNull();
    expect(await repo.claimBoot(id, new Date(0))).toBeNull(); // someone is booting it
    const second = await repo.claimBoot(id, stuck);
    expect(second).toBe(first! + 1n);

    expect(await repo.markRunning(id, first!, binding)).toBe(false);
    expect(await repo.markError(id, first!, 'late failure')).toBe(false);
    expect(await prisma.computer.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'booting', endpoint: null });

    expect(await repo.markRunning(id, second!, binding)).toBe(true);
    expect(await prisma.computer.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'running', bindFence: second });
  });

  it('stops the worker of a boot that was stopped while it was being provisioned', async () => {
    const { id } = await newComputer();
    const booting = computers.ensureRunning(id).then(
      () => undefined,
      (error: unknown) => error,
    );
    const late = await driver.provisionedButHeld();
    const pid = Number(/:(\d+)$/.exec(late.owner)![1]);
    expect(alive(pid)).toBe(true);

    await computers.stop(id); // the person (or the idle loop's stuck-boot reclaim) wins
    driver.finishProvisioning();

    const error = await booting;
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toMatch(/stopped while it booted/);
    expect(await prisma.computer.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'stopped', endpoint: null });
    expect(driver.workerPids()).toEqual([]);
    expect(alive(pid)).toBe(false);
  }, 90_000);

  it('refuses to suspend or stop a computer a run works on, under the power lock', async () => {
    const bot = await newBot('private');
    const { id } = await computers.computerOf(bot);
    const fence = await repo.claimBoot(id, new Date(0));
    await repo.markRunning(id, fence!, { endpoint: 'http://127.0.0.1:1', tokenCipher: new Uint8Array(8), owner: 'local:test:1' });
    await prisma.run.create({ data: { workspaceId: bot.workspaceId, botId: bot.id, status: 'running' } });

    await expect(computers.suspend(id)).rejects.toMatchObject({ code: 'CONFLICT', message: /agent is working/ });
    expect(await computers.suspend(id, new Date())).toBe(false); // the idle loop just leaves it
    await expect(computers.stop(id, { unlessBusy: true })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await prisma.computer.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'running' });
  });

  it("records the screen's real display, above the computer's display base", async () => {
    driver.hold = false;
    const bot = await newBot();
    const { running, screen } = await computers.bootForBot(bot);
    try {
      expect(screen.slot).toBe(0);
      expect(screen.display).toBeGreaterThan(displayBaseFrom);
      const onWorker = await computers.botComputerView(bot);
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
