import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { WebSocket } from 'ws';
import { workerRoutes, type BusyStep, type RealtimeEvent, type RealtimeRoom } from '@lazyboy/contracts';
import { AppModule } from '../app.module.js';
import { configureApp } from '../bootstrap.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { testApiConfig, TEST_INTERNAL_SECRET } from '../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { signUp, type TestUser, until } from '../../../../test/support/index.js';
import { ComputersLifecycle } from './computers-lifecycle.js';
import { LocalPoolDriver } from './local-pool-driver.js';
import { PoolDriver } from './pool-driver.js';
import { RunScreens, type AcquiredScreen } from './run-screens.js';
import { ScreenControlService } from './screen-control.service.js';
import { WorkerCallError } from './worker-client.js';

// Real workers: the local pool driver spawns apps/worker/dist/main.js, which runs real Xvfb, Chromium and
// VNC. Boots are slow on two cores, so the whole suite shares one Team computer through its life:
// boot → two screens → fences → takeover → viewer tickets → idle suspend → wake → stop.

const SCREEN_LIMIT = 2;

class RecordingPublisher extends RealtimePublisher {
  readonly events: Array<{ rooms: readonly RealtimeRoom[]; event: RealtimeEvent }> = [];
  async publish(rooms: readonly RealtimeRoom[], event: RealtimeEvent): Promise<void> {
    this.events.push({ rooms, event });
  }
}

const publisher = new RecordingPublisher();

/** Pids of X servers on the given display numbers. */
function xServers(displays: number[]): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .flatMap((line) => {
      const match = /^\s*(\d+)\s+\S*Xvfb :(\d+)\b/.exec(line);
      return match && displays.includes(Number(match[2])) ? [Number(match[1])] : [];
    });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('computers with real workers (local pool driver)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-computers-'));
  // Each Jest worker searches its own range of display numbers (other suites run desktops in parallel).
  const displayBaseFrom = 1_000 + Number(process.env.JEST_WORKER_ID ?? 0) * 1_000 + 600;
  let db: IsolatedDatabase;
  let app: INestApplication;
  let prisma: PrismaService;
  let screens: RunScreens;
  let control: ScreenControlService;
  let driver: LocalPoolDriver;
  let url: string;
  let member: TestUser;
  let stranger: TestUser;
  let agentA: string;
  let agentB: string;
  const workerPids = new Set<number>();
  const xPids = new Set<number>();
  let ourDisplays: number[] = [];

  const http = () => request(url);
  /** The web server's calls: its shared secret in x-lazyboy-internal. */
  const internal = (path: string) => http().post(path).set('x-lazyboy-internal', TEST_INTERNAL_SECRET);
  const createAgent = async (name: string, computerMode: 'team' | 'private' = 'team'): Promise<string> => {
    const res = await http()
      .post(`/api/workspaces/${member.workspaceId}/agents`)
      .set('cookie', member.cookie)
      .send({ name: `${name}-${randomUUID()}`, avatarSeed: name, computerMode });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  /** A running run of the agent. An agent runs one at a time (the database holds to it): its earlier runs end first. */
  const newRun = async (agentId: string) => {
    await prisma.run.updateMany({ where: { agentId, status: 'running' }, data: { status: 'failed' } });
    return (await prisma.run.create({ data: { workspaceId: member.workspaceId, agentId, status: 'running' } })).id;
  };
  const finishRuns = () => prisma.run.updateMany({ where: { workspaceId: member.workspaceId }, data: { status: 'completed' } });
  const teamComputer = () => prisma.computer.findFirstOrThrow({ where: { workspaceId: member.workspaceId, kind: 'team' } });
  const acquire = (agentId: string, runId: string, steps: BusyStep[] = []) =>
    screens.acquire({
      workspaceId: member.workspaceId,
      agentId,
      runId,
      onStep: (step) => steps.push(step),
      signal: new AbortController().signal,
    });
  const shell = (held: AcquiredScreen, fence: number, command: string) =>
    held.worker.call(workerRoutes.shellRun, { slot: held.slot, fence, command });
  const refusal = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkerCallError);
    return error as WorkerCallError;
  };

  beforeAll(async () => {
    chmodSync(dir, 0o755);
    db = await createIsolatedDatabase();
    const config = testApiConfig({
      DATABASE_URL: db.url,
      LAZYBOY_HOMES_DIR: path.join(dir, 'homes'),
      LAZYBOY_DISPLAY_BASE_FROM: String(displayBaseFrom),
      TEAM_SCREEN_LIMIT: String(SCREEN_LIMIT),
      LAZYBOY_IDLE_CHECK_MS: '250',
      LAZYBOY_COMPUTER_SUSPEND_AFTER_MS: '4000',
      LAZYBOY_COMPUTER_STOP_AFTER_MS: '7000',
      LAZYBOY_CONTROL_LEASE_MS: '60000',
    });
    // The whole API, with a publisher that records what it would send to browsers.
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.forConfig(config)] })
      .overrideProvider(RealtimePublisher)
      .useValue(publisher)
      .compile();
    app = configureApp(moduleRef.createNestApplication<NestExpressApplication>({ logger: ['error', 'warn'], bodyParser: false }));
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    prisma = app.get(PrismaService);
    screens = app.get(RunScreens);
    control = app.get(ScreenControlService);
    driver = app.get(PoolDriver) as LocalPoolDriver;
    member = await signUp(url);
    stranger = await signUp(url);
    agentA = await createAgent('alpha');
    agentB = await createAgent('beta');
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    // Nothing the suite started may outlive it: the workers and every X server of theirs.
    for (const pid of driver?.workerPids() ?? []) workerPids.add(pid);
    const left = [...workerPids, ...xPids, ...xServers(ourDisplays)].filter(alive);
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
    expect(left).toEqual([]);
  }, 60_000);

  it('boots one Team computer for two agents at once, each on its own screen', async () => {
    const stepsA: BusyStep[] = [];
    const stepsB: BusyStep[] = [];
    const [runA, runB] = [await newRun(agentA), await newRun(agentB)];
    const [a, b] = await Promise.all([acquire(agentA, runA, stepsA), acquire(agentB, runB, stepsB)]);
    expect(a.computerId).toBe(b.computerId);
    expect(new Set([a.slot, b.slot])).toEqual(new Set([0, 1]));
    expect(stepsA).toEqual([{ kind: 'booting' }]);
    expect(stepsB).toEqual([{ kind: 'booting' }]);
    expect(driver.workerPids()).toHaveLength(1);
    for (const pid of driver.workerPids()) workerPids.add(pid);

    const computer = await teamComputer();
    expect(computer).toMatchObject({ state: 'running', kind: 'team', agentId: null });
    expect(computer.controlTokenCipher).not.toBeNull();
    // The token is stored encrypted, never as is.
    expect(Buffer.from(computer.controlTokenCipher!).toString('utf8')).not.toContain(a.worker.endpoint.token);

    const onWorker = await a.worker.call(workerRoutes.listScreens, {});
    expect(onWorker.screens.map((s) => [s.slot, s.state, s.profileKey])).toEqual(
      [
        [a.slot, 'running', agentA],
        [b.slot, 'running', agentB],
      ].sort((x, y) => Number(x[0]) - Number(y[0])),
    );
    ourDisplays = onWorker.screens.map((s) => Number(s.endpoints!.display.slice(1)));
    for (const pid of xServers(ourDisplays)) xPids.add(pid);
    expect(xPids.size).toBe(2);

    const panel = await http().get(`/api/agents/${agentA}/computer`).set('cookie', member.cookie);
    expect(panel.status).toBe(200);
    expect(panel.body).toMatchObject({
      computer: { id: a.computerId, state: 'running', kind: 'team' },
      screen: { slot: a.slot, agentId: agentA, controlHolder: 'agent' },
    });
    expect(panel.body.computer.screens).toHaveLength(2);
    const list = await http().get(`/api/workspaces/${member.workspaceId}/computers`).set('cookie', member.cookie);
    expect(list.status).toBe(200);
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([a.computerId]);

    const updates = publisher.events.filter((e) => e.event.type === 'computer.updated');
    expect(updates.some((e) => e.event.type === 'computer.updated' && e.event.computer.state === 'booting')).toBe(true);
    expect(updates.at(-1)?.rooms).toEqual(
      expect.arrayContaining([
        { kind: 'workspace', id: member.workspaceId },
        { kind: 'agent', id: agentA },
        { kind: 'agent', id: agentB },
      ]),
    );
  }, 120_000);

  it("answers 404 for another workspace's agent, exactly like a missing one", async () => {
    for (const agentId of [agentA, randomUUID()]) {
      const res = await http().get(`/api/agents/${agentId}/computer`).set('cookie', stranger.cookie);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const list = await http().get(`/api/workspaces/${member.workspaceId}/computers`).set('cookie', stranger.cookie);
    expect(list.status).toBe(404);
  });

  it('fences out the older holder when a run acquires the screen again', async () => {
    const firstRun = await newRun(agentA);
    const first = await acquire(agentA, firstRun);
    // The first run ends without giving the screen back (its executor died); the agent's next run takes it.
    const secondRun = await newRun(agentA);
    const second = await acquire(agentA, secondRun);
    expect(second.fence).toBe(first.fence + 1);
    expect(second.slot).toBe(first.slot);

    const stale = await refusal(shell(first, first.fence, 'touch stale-marker'));
    expect(stale).toMatchObject({ code: 'STALE_FENCE', status: 409 });
    const fresh = await shell(second, second.fence, 'echo fresh; ls stale-marker 2>/dev/null || echo no-marker');
    expect(fresh).toMatchObject({ done: true, exitCode: 0 });
    expect(fresh.done && fresh.outputTail).toBe('fresh\nno-marker\n');

    // Releasing the superseded run changes nothing; releasing the holder clears the lease.
    await screens.release(firstRun);
    const held = await prisma.computerScreen.findFirstOrThrow({ where: { agentId: agentA } });
    expect(held).toMatchObject({ executionRunId: secondRun, executionFence: BigInt(second.fence) });
    await screens.release(secondRun);
    expect((await prisma.computerScreen.findFirstOrThrow({ where: { agentId: agentA } })).executionRunId).toBeNull();
  }, 60_000);

  it('takeover: the agent is refused with 423 while a person holds the screen, and acts again after release', async () => {
    const held = await acquire(agentA, await newRun(agentA));
    const taken = await control.takeControl(agentA, member.userId, { ip: '127.0.0.1' });
    expect(taken.screen).toMatchObject({ controlHolder: 'user', controlUserId: member.userId });
    expect(await screens.controlHolder(agentA)).toBe('user');
    expect(await screens.controlHolder(agentB)).toBe('agent');

    const locked = await refusal(shell(held, held.fence, 'echo should-not-run'));
    expect(locked).toMatchObject({ code: 'CONTROL_HELD_BY_USER', status: 423 });
    // The other agent's screen is not affected.
    const other = await acquire(agentB, await newRun(agentB));
    expect(await shell(other, other.fence, 'echo b')).toMatchObject({ done: true, exitCode: 0 });

    // Nobody else may take it meanwhile, and only the holder may hand it back.
    await expect(control.takeControl(agentA, stranger.userId)).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(control.releaseControl(agentA, stranger.userId)).rejects.toMatchObject({ code: 'CONFLICT' });
    const released = await control.releaseControl(agentA, member.userId);
    expect(released?.fence).toBe(taken.fence + 1);
    expect(await screens.controlHolder(agentA)).toBe('agent');
    expect(await shell(held, held.fence, 'echo back')).toMatchObject({ done: true, exitCode: 0 });

    const audit = await prisma.auditLog.findMany({
      where: { workspaceId: member.workspaceId, action: { in: ['takeover.start', 'takeover.end'] } },
      orderBy: { id: 'asc' },
    });
    expect(audit.map((a) => [a.action, a.actorUserId, a.targetId])).toEqual([
      ['takeover.start', member.userId, agentA],
      ['takeover.end', member.userId, agentA],
    ]);
  }, 60_000);

  it('hands an expired takeover back to the agent from the idle loop', async () => {
    const held = await acquire(agentA, await newRun(agentA));
    await control.takeControl(agentA, member.userId);
    await refusal(shell(held, held.fence, 'true'));
    await prisma.computerScreen.updateMany({
      where: { agentId: agentA },
      data: { controlExpiresAt: new Date(Date.now() - 1_000) },
    });
    await until('the expired lease to be released', async () =>
      (await screens.controlHolder(agentA)) === 'agent' ? true : undefined,
    );
    // The database says so first; the worker hears it a moment later.
    const again = await until('the worker to take the agent again', () =>
      shell(held, held.fence, 'echo mine-again').catch((error: unknown) => {
        if (error instanceof WorkerCallError && error.code === 'CONTROL_HELD_BY_USER') return undefined;
        throw error;
      }),
    );
    expect(again).toMatchObject({ done: true, exitCode: 0 });
    const expired = await prisma.auditLog.findFirst({
      where: { workspaceId: member.workspaceId, action: 'takeover.end', actorUserId: null },
    });
    expect(expired?.metadata).toMatchObject({ reason: 'expired', userId: member.userId });
  }, 60_000);

  it('viewer tickets: issued per screen and mode, redeemed once, refused when altered', async () => {
    const heartbeat = await http().post(`/api/agents/${agentA}/computer/heartbeat`).set('cookie', member.cookie);
    expect(heartbeat.status).toBe(200);
    expect(heartbeat.body.computer.lastViewedAt).not.toBeNull();

    const issued = await http()
      .post(`/api/agents/${agentA}/computer/viewer-ticket`)
      .set('cookie', member.cookie)
      .send({ mode: 'view' });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ mode: 'view', path: expect.stringMatching(/^\/view\//) });
    expect(Date.parse(issued.body.expiresAt) - Date.now()).toBeLessThanOrEqual(60_000);

    const screen = await prisma.computerScreen.findFirstOrThrow({ where: { agentId: agentA } });
    // Only the web server redeems, with the shared secret; a refused caller does not use the ticket up.
    for (const secret of [null, 'x'.repeat(TEST_INTERNAL_SECRET.length)]) {
      const call = http().post('/api/viewer/redeem');
      const res = await (secret ? call.set('x-lazyboy-internal', secret) : call).send({ ticket: issued.body.ticket });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    const redeemed = await internal('/api/viewer/redeem').send({ ticket: issued.body.ticket });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toMatchObject({
      viewOnly: true,
      screenId: screen.id,
      target: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/screens\/\d+\/vnc$/),
      grant: expect.stringMatching(/^v1\./),
    });
    // The target is the worker's VNC socket for the screen: it speaks RFB to the grant, once.
    const { target, grant } = redeemed.body as { target: string; grant: string };
    expect(await rfbBanner(target, grant)).toMatch(/^RFB 003\.00\d\n$/);
    expect(await rfbBanner(target, grant)).toBe('refused: 401');
    expect(await rfbBanner(target, undefined)).toBe('refused: 401');
    const otherSlot = target.replace(/\/screens\/\d+\//, '/screens/7/');
    expect(await rfbBanner(otherSlot, grant)).toBe('refused: 401');

    const again = await internal('/api/viewer/redeem').send({ ticket: issued.body.ticket });
    expect(again.status).toBe(401);

    const fresh = await http().post(`/api/agents/${agentA}/computer/viewer-ticket`).set('cookie', member.cookie).send({});
    const [body, signature] = (fresh.body.ticket as string).split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, mode: 'control' })).toString('base64url');
    for (const ticket of [`${forged}.${signature}`, `${body}.${signature!.slice(0, -2)}xx`, 'not-a-ticket']) {
      const res = await internal('/api/viewer/redeem').send({ ticket });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    }

    // Control tickets only for the person holding control.
    const refused = await http()
      .post(`/api/agents/${agentA}/computer/viewer-ticket`)
      .set('cookie', member.cookie)
      .send({ mode: 'control' });
    expect(refused.status).toBe(403);
    await control.takeControl(agentA, member.userId);
    const controlTicket = await http()
      .post(`/api/agents/${agentA}/computer/viewer-ticket`)
      .set('cookie', member.cookie)
      .send({ mode: 'control' });
    expect(controlTicket.status).toBe(201);
    const driving = await internal('/api/viewer/redeem').send({ ticket: controlTicket.body.ticket });
    expect(driving.body).toMatchObject({ viewOnly: false, screenId: screen.id });
    // The web server's control checks: held by this person until handed back; never by anyone else.
    const check = async () =>
      (
        await internal('/api/viewer/control-check').send({
          holds: [
            { screenId: screen.id, userId: member.userId },
            { screenId: screen.id, userId: stranger.userId },
            { screenId: randomUUID(), userId: member.userId },
          ],
        })
      ).body.holds.map((h: { held: boolean }) => h.held);
    expect(await check()).toEqual([true, false, false]);
    await control.releaseControl(agentA, member.userId);
    expect(await check()).toEqual([false, false, false]);
    const unsigned = await http()
      .post('/api/viewer/control-check')
      .send({ holds: [{ screenId: screen.id, userId: member.userId }] });
    expect(unsigned.status).toBe(403);

    const foreign = await http().post(`/api/agents/${agentA}/computer/viewer-ticket`).set('cookie', stranger.cookie).send({});
    expect(foreign.status).toBe(404);
  }, 60_000);

  it('suspends an idle computer, wakes it for the next run, and stops it after a long suspension', async () => {
    await finishRuns();
    const computerId = (await teamComputer()).id;
    const suspended = await until(
      'the idle computer to be suspended',
      async () => {
        const c = await teamComputer();
        return c.state === 'suspended' ? c : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(suspended.suspendedAt).not.toBeNull();
    const binding = driver.workerPids();
    expect(binding).toHaveLength(1);

    const steps: BusyStep[] = [];
    const held = await acquire(agentB, await newRun(agentB), steps);
    expect(held.computerId).toBe(computerId);
    expect(steps).toEqual([{ kind: 'waking' }]);
    expect((await held.worker.call(workerRoutes.listScreens, {})).suspended).toBe(false);
    expect(await shell(held, held.fence, 'echo awake')).toMatchObject({ done: true, exitCode: 0 });
    expect(driver.workerPids()).toEqual(binding);

    await finishRuns();
    await screens.release((await prisma.computerScreen.findFirstOrThrow({ where: { agentId: agentB } })).executionRunId!);
    await until(
      'the suspended computer to be stopped',
      async () => ((await teamComputer()).state === 'stopped' ? true : undefined),
      { timeoutMs: 30_000 },
    );
    const stopped = await teamComputer();
    expect(stopped).toMatchObject({ endpoint: null, controlTokenCipher: null, bindOwner: null });
    expect(driver.workerPids()).toEqual([]);
    expect([...workerPids, ...xPids].filter(alive)).toEqual([]);
    const panel = await http().get(`/api/agents/${agentA}/computer`).set('cookie', member.cookie);
    expect(panel.body.computer.state).toBe('stopped');
  }, 90_000);

  it('boots, suspends, wakes and stops over HTTP, refusing while an agent works', async () => {
    const as = (path: string, who = member) => http().post(`/api/agents/${agentA}/computer/${path}`).set('cookie', who.cookie);
    const booted = await as('boot');
    expect(booted.status).toBe(200);
    expect(booted.body).toMatchObject({ computer: { state: 'running' }, screen: { agentId: agentA } });
    for (const pid of driver.workerPids()) workerPids.add(pid);
    await as('heartbeat');

    await newRun(agentB);
    const busy = await as('suspend');
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'CONFLICT', reason: 'computer_busy' });
    await finishRuns();

    expect((await as('suspend')).body.computer.state).toBe('suspended');
    expect((await as('wake')).body.computer.state).toBe('running');
    expect((await as('stop', stranger)).status).toBe(404);
    const stopped = await as('stop');
    expect(stopped.status).toBe(200);
    expect(stopped.body.computer.state).toBe('stopped');
    expect(driver.workerPids()).toEqual([]);
    const audit = await prisma.auditLog.findMany({
      where: { workspaceId: member.workspaceId, action: { in: ['computer.suspend', 'computer.stop'] } },
      orderBy: { id: 'asc' },
    });
    expect(audit.map((a) => a.action)).toEqual(['computer.suspend', 'computer.stop']);
  }, 90_000);

  it('marks stopped, at start-up, a computer whose worker no longer answers', async () => {
    const agent = { id: await createAgent('gamma', 'private') };
    const ghost = await prisma.computer.create({
      data: {
        workspaceId: member.workspaceId,
        kind: 'private',
        agentId: agent.id,
        homeKey: `agent-${agent.id}`,
        state: 'running',
        endpoint: 'http://127.0.0.1:9',
        controlTokenCipher: Buffer.from('not a sealed token'),
        bindOwner: 'local:elsewhere:1',
      },
    });
    await app.get(ComputersLifecycle).reconcile();
    expect(await prisma.computer.findUniqueOrThrow({ where: { id: ghost.id } })).toMatchObject({
      state: 'stopped',
      endpoint: null,
    });
  });
});

/** Opens the worker's VNC websocket with a view grant: the RFB banner, or how the upgrade was refused. */
function rfbBanner(target: string, grant: string | undefined): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(target, ['binary'], grant ? { headers: { authorization: `Bearer ${grant}` } } : {});
    socket.once('message', (data: Buffer) => {
      socket.close();
      resolve(data.toString('latin1'));
    });
    socket.once('unexpected-response', (_req, res) => resolve(`refused: ${res.statusCode}`));
    socket.once('error', (error) => resolve(`error: ${error.message}`));
  });
}
