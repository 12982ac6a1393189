import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ScreenManager } from '@lazyboy/desktop';
import os from 'node:os';
import path from 'node:path';
import { ControlServer } from './control-server.js';

describe('worker control server', () => {
  const token = 'a'.repeat(40);
  // Never started here: constructing a ScreenManager touches nothing on disk.
  const root = path.join(os.tmpdir(), 'lazyboy-worker-unused');
  const screens = new ScreenManager({
    computerId: 'team-1',
    homeDir: path.join(root, 'home'),
    runtimeDir: path.join(root, 'run'),
    screenLimit: 2,
  });
  const server = new ControlServer(
    {
      LAZYBOY_WORKER_HOST: '127.0.0.1',
      LAZYBOY_WORKER_PORT: 0,
      LAZYBOY_CONTROL_TOKEN: token,
      LAZYBOY_COMPUTER_ID: 'team-1',
      TEAM_SCREEN_LIMIT: 2,
      LAZYBOY_DISPLAY_BASE: 0,
      LAZYBOY_DESKTOP_SESSION: 'window-manager',
      LAZYBOY_EGRESS_PRIVATE_NETWORKS: 'deny',
      LAZYBOY_EGRESS_ALLOWED_DOMAINS: null,
      LAZYBOY_SHELL_BOUNDARY: 'bubblewrap',
    },
    { screens },
  );
  let base: string;

  beforeAll(async () => {
    const address = await server.listen();
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => server.close());

  it('answers /healthz without a token', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', computerId: 'team-1' });
  });

  it('refuses every other call without the right token', async () => {
    expect((await fetch(`${base}/screens`)).status).toBe(401);
    expect((await fetch(`${base}/screens`, { headers: { authorization: `Bearer ${'b'.repeat(40)}` } })).status).toBe(401);
    expect((await fetch(`${base}/screens`, { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);
    const authorised = await fetch(`${base}/screens`, { headers: { authorization: `Bearer ${token}` } });
    expect(authorised.status).toBe(200);
    expect(await authorised.json()).toEqual({ computerId: 'team-1', suspended: false, screenLimit: 2, screens: [] });
    const unknown = await fetch(`${base}/no-such-route`, { headers: { authorization: `Bearer ${token}` } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const unknownAction = await fetch(`${base}/browser/fly`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(await unknownAction.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('refuses to be assigned another computer: only a warm pool worker can be', async () => {
    const res = await fetch(`${base}/pool/assign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ computerId: 'other', controlToken: 'c'.repeat(40), bindFence: 1, screenLimit: 1 }),
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: 'ALREADY_ASSIGNED', details: { computerId: 'team-1' } } });
  });

  it('refuses to be released: only a pool worker lets its computer go (this one is stopped instead)', async () => {
    const res = await fetch(`${base}/computer/release`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: 'NOT_A_POOL_WORKER' } });
    // Still serving its computer.
    expect((await fetch(`${base}/screens`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
