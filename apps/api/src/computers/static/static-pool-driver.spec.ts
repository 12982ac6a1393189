import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readlinkSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workerRoutes } from '@lazyboy/contracts';
import { findComputerProcesses, readCmdline, type ComputerScope } from '@lazyboy/desktop';
import { until } from '../../../../../test/support/index.js';
import type { ApiError } from '../../common/api-error.js';
import { PrismaService } from '../../persistence/prisma.service.js';
import { RedisService } from '../../redis/redis.service.js';
import { testApiConfig } from '../../testing/test-config.js';
import { TestStaticWorkers } from '../../testing/test-static-workers.js';
import { ComputersRepository } from '../computers.repository.js';
import { COMPUTER_LOST_MESSAGE_UNSENT, ComputersService } from '../computers.service.js';
import { describePoolDriverConformance } from '../pool-driver.conformance.js';
import type { PoolDriver, WorkerBinding } from '../pool-driver.js';
import { createStaticPoolDriver } from '../pool-drivers.js';
import { PowerLock } from '../power-lock.js';
import { neverDelivered, WorkerCallError, WorkerClient } from '../worker-client.js';
import { NoWorkerAnswersError, StaticWorkerRefusedError } from './static-pool-errors.js';
import type { StaticPoolDriver } from './static-pool-driver.js';

// The static driver against real pool-mode workers (apps/worker/dist/main.js, LAZYBOY_WORKER_MODE=pool),
// run as docker compose would run them: a fixed set on one host, one homes directory, each started again
// when it exits. Three are enough for the suite (two racing boots, and a third while one restarts).

const WORKERS = 3;
const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-static-pool-'));
// A computer's own user must reach its home inside (the worker runs as root here).
chmodSync(dir, 0o755);
const config = testApiConfig({ TEAM_SCREEN_LIMIT: '1' });
let workers: TestStaticWorkers;

/**
 * The processes of the computers in `scope` on this host. Containers of other software on this machine
 * (a test Kubernetes node's pods) may run as a uid a computer's user got here too: they are in another PID
 * namespace, and none of ours.
 */
const ownPidNamespace = readlinkSync('/proc/self/ns/pid');
const desktopProcesses = (scope: ComputerScope) =>
  findComputerProcesses(scope).filter((pid) => {
    try {
      return readlinkSync(`/proc/${pid}/ns/pid`) === ownPidNamespace;
    } catch {
      return false; // gone meanwhile
    }
  });

/** The API's configuration for the static pool, as the compose file would set it. */
const staticConfig = (overrides: Parameters<typeof testApiConfig>[0] = {}) =>
  testApiConfig({
    TEAM_SCREEN_LIMIT: '1',
    LAZYBOY_POOL_DRIVER: 'static',
    LAZYBOY_STATIC_WORKERS: workers.entries,
    LAZYBOY_POOL_TOKEN: workers.poolToken,
    ...overrides,
  });
const drivers: StaticPoolDriver[] = [];
const makeDriver = (
  overrides: Parameters<typeof testApiConfig>[0] = {},
  options: Parameters<typeof createStaticPoolDriver>[1] = {},
) => {
  const driver = createStaticPoolDriver(staticConfig(overrides), options);
  drivers.push(driver);
  return driver;
};

beforeAll(async () => {
  workers = await TestStaticWorkers.start({ count: WORKERS, dir });
}, 120_000);

afterAll(async () => {
  for (const driver of drivers) await driver.shutdown();
  // Nothing of any computer's desktop outlived its worker.
  const left = workers ? desktopProcesses({ homesDir: workers.homesDir }) : [];
  await workers?.close();
  if (!process.env.KEEP_STATIC_DIR) rmSync(dir, { recursive: true, force: true });
  expect(left).toEqual([]);
}, 60_000);

describePoolDriverConformance('static', {
  config,
  workersOutliveApi: true,
  makeDriver,
  // A replica that dies stops polling; its workers serve on.
  crash: async (driver: PoolDriver) => {
    await driver.shutdown();
  },
  kill: (binding) => workers.kill(binding),
  running: (binding) => workers.running(binding),
});

describe('the static pool', () => {
  const prisma = new PrismaService(config);
  const redis = new RedisService(config);
  const repo = new ComputersRepository(prisma);
  const services: ComputersService[] = [];

  const newComputer = async () => {
    const workspace = await prisma.workspace.create({ data: { name: 'static', slug: `static-${randomUUID()}` } });
    const agent = await prisma.agent.create({
      data: { workspaceId: workspace.id, name: 's', avatarSeed: 's', computerMode: 'private' },
    });
    return repo.ensureComputerForAgent({ id: agent.id, workspaceId: workspace.id, computerMode: 'private' });
  };
  const service = (driver: PoolDriver) => {
    const made = new ComputersService(repo, driver, new PowerLock(redis), config, undefined);
    services.push(made);
    return made;
  };
  const free = (port: number) =>
    until(`the worker at :${port} to come back free`, async () => {
      const health = await new WorkerClient({ baseUrl: `http://127.0.0.1:${port}`, token: '' }).health(1_000);
      return health?.computerId === null;
    });
  const portOf = (binding: WorkerBinding) => Number(new URL(binding.endpoint.baseUrl).port);

  beforeAll(async () => {
    await redis.onModuleInit();
    // The conformance suite's last stops have come back as fresh workers.
    await workers.untilAllFree();
  }, 60_000);

  afterAll(async () => {
    for (const made of services) made.detach();
    await prisma.$disconnect();
    redis.client.disconnect();
  });

  it(
    'runs a real desktop with its home in the shared homes directory; the stop ends all of it, and a fresh ' +
      'worker takes the old one’s place',
    async () => {
      const driver = makeDriver();
      // One id for every run: as root the desktop runs as the computer's own user, made once.
      const computerId = 'static-desktop';
      const homeKey = `agent-${randomUUID()}`;
      const binding = await driver.provision({ computerId, homeKey, screenLimit: 1, bindFence: 1n });
      const home = path.join(workers.homesDir, homeKey);
      expect(statSync(home).mode & 0o777).toBe(0o700);

      const worker = new WorkerClient(binding.endpoint);
      const screen = await worker.call(workerRoutes.ensureScreen, { slot: 0, profileKey: 'p', fence: 1 }, { timeoutMs: 120_000 });
      expect(screen.state).toBe('running');
      // A command left running in the background: it must not survive the computer's release either.
      const started = await worker.call(workerRoutes.shellRun, {
        slot: 0,
        fence: 1,
        command: 'sleep 600',
        timeoutMs: 600_000,
        blockUntilMs: 0,
      });
      expect(started.done).toBe(false);
      const running = await until('the desktop and the command to run', () => {
        const pids = desktopProcesses({ home });
        const commands = pids.map((pid) => readCmdline(pid)?.join(' ') ?? '');
        return commands.some((c) => /chromium/.test(c)) && commands.some((c) => /sleep 600/.test(c)) ? pids : undefined;
      });
      expect(running.length).toBeGreaterThan(2);
      // The home is the homes directory's, not a default beside the worker.
      expect(existsSync(path.join(home, '.config'))).toBe(true);

      const exitsBefore = workers.exits.length;
      await driver.stop(binding);
      // Resolved once nothing of the computer runs: Xvfb, Chromium, the shell's command, all gone already.
      expect(desktopProcesses({ home })).toEqual([]);
      // The worker closes its port before its process has quite exited: its exit is waited for, not assumed.
      const exited = await until(
        'the released worker to exit',
        () => workers.exits.length > exitsBefore && workers.exits.slice(exitsBefore),
      );
      expect(exited).toEqual([{ port: portOf(binding), code: 0, signal: null }]);
      await free(portOf(binding));
      expect(await workers.running(binding)).toBe(false);
      // The home stays for the computer's next boot.
      expect(existsSync(path.join(home, '.config'))).toBe(true);
    },
    240_000,
  );

  it('tells whoever boots a computer that all computers are in use, and how to add workers, until one stops', async () => {
    const replica = service(makeDriver());
    const computers = await Promise.all(Array.from({ length: WORKERS + 1 }, () => newComputer()));
    const running = [];
    for (const computer of computers.slice(0, WORKERS)) running.push(await replica.ensureRunning(computer.id));
    const extra = computers[WORKERS]!;

    const refused = (await replica.ensureRunning(extra.id).then(
      () => undefined,
      (error: unknown) => error,
    )) as ApiError;
    const message =
      `all ${WORKERS} computers of this host are in use (its ${WORKERS} workers each serve one); stop a computer ` +
      'nobody uses, or add workers: list another worker in LAZYBOY_STATIC_WORKERS';
    expect(refused).toMatchObject({ code: 'NOT_READY', message: `the computer failed to boot: ${message}` });
    // The computer shows it too (the person's view of it), and says nothing of the pool's token.
    const row = await prisma.computer.findUniqueOrThrow({ where: { id: extra.id } });
    expect(row).toMatchObject({ state: 'error', errorMessage: message });

    // One stops: its worker comes back fresh, and the computer that waited boots on it.
    await replica.stop(computers[0]!.id);
    await free(portOf(running[0]!.binding));
    const booted = await replica.ensureRunning(extra.id);
    expect(portOf(booted.binding)).toBe(portOf(running[0]!.binding));
    expect(booted.binding.owner).not.toBe(running[0]!.binding.owner);
    for (const computer of [...computers.slice(1, WORKERS), extra]) await replica.stop(computer.id);
  }, 180_000);

  it('turns a call that meets a fresh worker at its computer’s address into COMPUTER_LOST: nothing was done', async () => {
    const replica = service(makeDriver());
    const computer = await newComputer();
    const { binding } = await replica.ensureRunning(computer.id);
    await workers.kill(binding);
    // The restart policy has brought a fresh worker up at the same address before anyone noticed.
    await free(portOf(binding));
    const late = await replica
      .workerClient(binding)
      .call(workerRoutes.listScreens, {})
      .then(
        () => undefined,
        (error: unknown) => error as WorkerCallError,
      );
    expect(late).toMatchObject({ code: 'COMPUTER_LOST', message: COMPUTER_LOST_MESSAGE_UNSENT });
    expect(neverDelivered(late!)).toBe(true);
    expect((await prisma.computer.findUniqueOrThrow({ where: { id: computer.id } })).state).toBe('stopped');
    // The next use boots it again, on whichever worker is free.
    const next = await replica.ensureRunning(computer.id);
    expect(next.binding.bindFence).toBeGreaterThan(binding.bindFence);
    await replica.stop(computer.id);
  }, 60_000);

  it('says when no worker answers, and when the workers refuse the pool token (never naming a token)', async () => {
    const spec = { computerId: `static-${randomUUID().slice(0, 8)}`, homeKey: 'agent-x', screenLimit: 1, bindFence: 1n };
    const unreachable = makeDriver({ LAZYBOY_STATIC_WORKERS: '127.0.0.1:1' }, { restartWaitMs: 1_000 });
    const none = await unreachable.provision(spec).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(none).toBeInstanceOf(NoWorkerAnswersError);
    expect(none!.message).toBe(
      'no worker of this host answers (LAZYBOY_STATIC_WORKERS=127.0.0.1:1: 1 worker found, none answers); ' +
        'start the worker service (docker compose up -d) and check its logs',
    );

    const otherToken = 'o'.repeat(40);
    const wrong = makeDriver({ LAZYBOY_POOL_TOKEN: otherToken });
    const refused = await wrong.provision(spec).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused).toBeInstanceOf(StaticWorkerRefusedError);
    expect(refused!.message).toMatch(/refused the pool token: the API's LAZYBOY_POOL_TOKEN is not the workers'/);
    expect(refused!.message).not.toContain(otherToken);
    expect(refused!.message).not.toContain(workers.poolToken);
    // Nothing was assigned.
    await workers.untilAllFree(5_000);
  }, 60_000);
});
