import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ControlServer } from './control-server.js';

describe('worker control server', () => {
  const token = 'a'.repeat(40);
  const server = new ControlServer({
    LAZYBOY_WORKER_HOST: '127.0.0.1',
    LAZYBOY_WORKER_PORT: 0,
    LAZYBOY_CONTROL_TOKEN: token,
    LAZYBOY_COMPUTER_ID: 'team-1',
    TEAM_SCREEN_LIMIT: 8,
  });
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
    expect(authorised.status).toBe(404);
    expect(await authorised.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});
