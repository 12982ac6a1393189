import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BIND_FENCE_HEADER } from '@lazyboy/contracts';
import { ScreenManager } from '@lazyboy/desktop';
import os from 'node:os';
import path from 'node:path';
import { PoolWorker } from './pool-worker.js';

describe('a warm pool worker', () => {
  const poolToken = 'p'.repeat(40);
  const controlToken = 'c'.repeat(40);
  // Never started here: constructing a ScreenManager touches nothing on disk.
  const root = path.join(os.tmpdir(), 'lazyboy-pool-worker-unused');
  const made: string[] = [];
  const worker = new PoolWorker(
    {
      LAZYBOY_WORKER_HOST: '127.0.0.1',
      LAZYBOY_WORKER_PORT: 0,
      LAZYBOY_POOL_TOKEN: poolToken,
      TEAM_SCREEN_LIMIT: 4,
      LAZYBOY_DISPLAY_BASE: 0,
      LAZYBOY_DESKTOP_SESSION: 'window-manager',
      LAZYBOY_EGRESS_PRIVATE_NETWORKS: 'deny',
      LAZYBOY_EGRESS_ALLOWED_DOMAINS: null,
      LAZYBOY_SHELL_BOUNDARY: 'bubblewrap',
    },
    {
      log: () => undefined,
      makeScreens: (config) => {
        made.push(config.LAZYBOY_COMPUTER_ID);
        return new ScreenManager({
          computerId: config.LAZYBOY_COMPUTER_ID,
          homeDir: path.join(root, 'home'),
          runtimeDir: path.join(root, 'run'),
          screenLimit: config.TEAM_SCREEN_LIMIT,
        });
      },
    },
  );
  let base: string;
  const call = (route: string, token: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const assign = (body: Record<string, unknown>, token = poolToken) =>
    call('/pool/assign', token, { computerId: 'comp-1', controlToken, bindFence: 3, screenLimit: 2, ...body });

  beforeAll(async () => {
    const address = await worker.listen();
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => worker.close());

  it('serves no computer before it is assigned one: health says so, every other call is refused', async () => {
    expect(await (await fetch(`${base}/healthz`)).json()).toMatchObject({ status: 'ok', computerId: null });
    expect((await call('/screens', 'x'.repeat(40))).status).toBe(401);
    const unassigned = await call('/screens', poolToken);
    expect(unassigned.status).toBe(409);
    expect(await unassigned.json()).toMatchObject({ error: { code: 'NOT_ASSIGNED' } });
  });

  it('refuses an assignment without the pool token, a malformed one and one beyond its screens, and stays unassigned', async () => {
    expect((await assign({}, controlToken)).status).toBe(401);
    const malformed = await assign({ computerId: '../etc', controlToken: 'short' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    expect((await assign({ extra: true })).status).toBe(400);
    const tooMany = await assign({ screenLimit: 5 });
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({ error: { code: 'SCREEN_LIMIT' } });
    expect(worker.computerId).toBeUndefined();
    expect(made).toEqual([]);
  });

  it('becomes the computer it is assigned: its control token opens the calls, the pool token no longer does', async () => {
    const assigned = await assign({});
    expect(assigned.status).toBe(200);
    expect(await assigned.json()).toEqual({ computerId: 'comp-1', bindFence: 3 });
    expect(await (await fetch(`${base}/healthz`)).json()).toMatchObject({ computerId: 'comp-1' });
    const screens = await call('/screens', controlToken, undefined, { [BIND_FENCE_HEADER]: '3' });
    expect(screens.status).toBe(200);
    expect(await screens.json()).toEqual({ computerId: 'comp-1', suspended: false, screenLimit: 2, screens: [] });
    expect((await call('/screens', poolToken, undefined, { [BIND_FENCE_HEADER]: '3' })).status).toBe(401);
    // The binding's fence came with the assignment: a call of an older binder is refused.
    expect(await (await call('/screens', controlToken, undefined, { [BIND_FENCE_HEADER]: '2' })).json()).toMatchObject({
      error: { code: 'STALE_BINDER' },
    });
  });

  it('answers a repeated assignment (its answer was lost) and refuses another computer or another token', async () => {
    const again = await assign({ bindFence: 4 });
    expect(await again.json()).toEqual({ computerId: 'comp-1', bindFence: 4 });
    for (const other of [{ computerId: 'comp-2' }, { controlToken: 'd'.repeat(40) }]) {
      const refused = await assign({ ...other, bindFence: 9 });
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ error: { code: 'ALREADY_ASSIGNED' } });
    }
    expect(await (await assign({ bindFence: 2 })).json()).toMatchObject({ error: { code: 'STALE_BINDER' } });
    expect(made).toEqual(['comp-1']);
  });
});
