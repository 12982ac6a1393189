import { afterAll, describe, expect, it } from '@jest/globals';
import { BIND_FENCE_HEADER, type PoolWorkerEnv } from '@lazyboy/contracts';
import { ScreenManager } from '@lazyboy/desktop';
import os from 'node:os';
import path from 'node:path';
import { until } from '../../../../test/support/index.js';
import { PoolWorker } from './pool-worker.js';

// The release of a static pool's worker: it lets its computer go (its control token and bind fence, like
// every control call), stops the desktop and only then stops serving and ends its process.

const poolToken = 'p'.repeat(40);
const controlToken = 'c'.repeat(40);
const root = path.join(os.tmpdir(), 'lazyboy-pool-release-unused');

const env: PoolWorkerEnv = {
  LAZYBOY_WORKER_HOST: '127.0.0.1',
  LAZYBOY_WORKER_PORT: 0,
  LAZYBOY_POOL_TOKEN: poolToken,
  TEAM_SCREEN_LIMIT: 2,
  LAZYBOY_DISPLAY_BASE: 0,
  LAZYBOY_DESKTOP_SESSION: 'window-manager',
  LAZYBOY_EGRESS_PRIVATE_NETWORKS: 'deny',
  LAZYBOY_EGRESS_ALLOWED_DOMAINS: null,
  LAZYBOY_SHELL_BOUNDARY: 'bubblewrap',
};

/** Screens whose stop waits until the test lets it finish (or fails), so the release can be seen half done. */
class HeldScreens extends ScreenManager {
  disposed = false;
  private finish!: (error?: Error) => void;
  private readonly gate = new Promise<void>((resolve, reject) => {
    this.finish = (error) => (error ? reject(error) : resolve());
  });

  constructor(computerId: string) {
    // Never started: constructing a ScreenManager touches nothing on disk.
    super({ computerId, homeDir: path.join(root, 'home'), runtimeDir: path.join(root, 'run'), screenLimit: 2 });
  }

  override async dispose(): Promise<void> {
    await this.gate;
    this.disposed = true;
  }

  done(error?: Error): void {
    this.finish(error);
  }
}

async function assignedWorker() {
  let screens: HeldScreens | undefined;
  const exits: number[] = [];
  const worker = new PoolWorker(env, {
    log: () => undefined,
    makeScreens: (config) => (screens = new HeldScreens(config.LAZYBOY_COMPUTER_ID)),
    exit: (code) => exits.push(code),
  });
  const base = `http://127.0.0.1:${(await worker.listen()).port}`;
  const call = (route: string, token: string, fence?: number, body?: unknown) =>
    fetch(`${base}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(fence === undefined ? {} : { [BIND_FENCE_HEADER]: String(fence) }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const assigned = await call('/pool/assign', poolToken, undefined, {
    computerId: 'comp-1',
    controlToken,
    bindFence: 5,
    screenLimit: 1,
  });
  expect(assigned.status).toBe(200);
  return { worker, base, call, exits, screens: () => screens! };
}

describe('a released pool worker', () => {
  const workers: PoolWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.close();
  });

  it('is released only by its binder: the pool token, another token or an older fence change nothing', async () => {
    const { worker, call, exits, screens } = await assignedWorker();
    workers.push(worker);
    const release = (token: string, fence?: number) => call('/computer/release', token, fence, {});
    expect((await release(poolToken, 5)).status).toBe(401);
    expect((await release('d'.repeat(40), 5)).status).toBe(401);
    expect(await (await release(controlToken, 4)).json()).toMatchObject({ error: { code: 'STALE_BINDER' } });
    expect(await (await release(controlToken)).json()).toMatchObject({ error: { code: 'STALE_BINDER' } });
    // Nothing refused above got as far as the release: the computer is served as before.
    expect((await call('/screens', controlToken, 5)).status).toBe(200);
    expect(screens().disposed).toBe(false);
    expect(exits).toEqual([]);
    expect((await release(controlToken, 5)).status).toBe(200);
    screens().done();
    await until('the released worker to exit', () => exits.length > 0);
  });

  it('answers, stops the desktop while its health still names the computer, then stops serving and exits 0', async () => {
    const { worker, base, call, exits, screens } = await assignedWorker();
    workers.push(worker);
    const released = await call('/computer/release', controlToken, 5, {});
    expect(released.status).toBe(200);
    expect(await released.json()).toEqual({ computerId: 'comp-1', releasing: true });

    // The desktop is still stopping: health answers as the computer (its releaser waits for that to end),
    // a repeated release (a lost answer) is answered again, and nothing else runs.
    expect(await (await fetch(`${base}/healthz`)).json()).toMatchObject({ computerId: 'comp-1' });
    expect((await call('/computer/release', controlToken, 5, {})).status).toBe(200);
    const refused = await call('/screens', controlToken, 5);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'COMPUTER_UNAVAILABLE' } });
    expect((await call('/screens', poolToken, 5)).status).toBe(401);
    expect(exits).toEqual([]);

    screens().done();
    await until('the released worker to exit', () => exits.length > 0);
    expect(exits).toEqual([0]);
    expect(screens().disposed).toBe(true);
    // It serves nothing any more: its port is closed until a fresh worker takes it.
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  it('exits 1 when its desktop could not be stopped', async () => {
    const { worker, call, exits, screens } = await assignedWorker();
    workers.push(worker);
    expect((await call('/computer/release', controlToken, 5, {})).status).toBe(200);
    screens().done(new Error('Xvfb would not stop'));
    await until('the released worker to exit', () => exits.length > 0);
    expect(exits).toEqual([1]);
  });

  it('cannot be released before it is assigned a computer', async () => {
    const exits: number[] = [];
    const worker = new PoolWorker(env, { log: () => undefined, exit: (code) => exits.push(code) });
    workers.push(worker);
    const base = `http://127.0.0.1:${(await worker.listen()).port}`;
    const res = await fetch(`${base}/computer/release`, {
      method: 'POST',
      headers: { authorization: `Bearer ${poolToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: 'NOT_ASSIGNED' } });
    expect(exits).toEqual([]);
  });
});
