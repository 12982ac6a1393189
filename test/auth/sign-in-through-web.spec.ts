import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { trustedProxiesSchema } from '@lazyboy/contracts';
import { FORWARDED_CLIENT_HEADER, signForwardedClient, TrustedProxies } from '@lazyboy/contracts/node';
import { PrismaService } from '../../apps/api/src/persistence/prisma.service.js';
import { freshIp, freshLoopback, requestFrom } from '../../apps/api/src/testing/test-addresses.js';
import { startTestApp, type TestApp } from '../../apps/api/src/testing/test-app.js';
import { TEST_INTERNAL_SECRET, testApiConfig } from '../../apps/api/src/testing/test-config.js';
import { ApiProxy, isApiPath } from '../../apps/web/server/api-proxy.js';
import { ClientAddresses } from '../../apps/web/server/client-address.js';

// Sign-ins through the web server's pass-through to the real API, between real sockets, from callers on
// this machine, as the agents' own browsers are: the address the rate limits count is the one the web
// server saw, never one a caller wrote into X-Forwarded-For.

describe('signing in through the web server', () => {
  const attempts = 2;
  const perAddress = attempts * 5;
  let api: TestApp;
  let prisma: PrismaService;
  const servers: http.Server[] = [];
  /** The web server as `lazyboy up` starts it: no proxy listed. */
  let web: string;
  /** One with a reverse proxy in front, at 127.66.0.0/16. */
  let behindProxy: string;

  async function webServer(trusted: string): Promise<string> {
    const proxy = new ApiProxy(
      new URL(api.url),
      new ClientAddresses(new TrustedProxies(trustedProxiesSchema.parse(trusted))),
      TEST_INTERNAL_SECRET,
    );
    const server = http.createServer((req, res) => {
      if (isApiPath(req.url)) proxy.request(req, res);
      else res.writeHead(404).end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    // The API as `lazyboy up` starts it too: no proxy listed, the web server vouches for the browser.
    api = await startTestApp(testApiConfig({ LAZYBOY_LOGIN_ATTEMPTS: String(attempts) }));
    prisma = api.app.get(PrismaService);
    web = await webServer('');
    behindProxy = await webServer('127.66.0.0/16');
  });
  afterAll(async () => {
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise((r) => server.close(r))));
    await api.close();
  });

  /** A failed sign-in for a fresh email through `base` from `peer`: its status and the address the API audited. */
  async function failThrough(base: string, peer: string, headers: Record<string, string> = {}) {
    const email = `nobody-${randomUUID()}@example.test`;
    const res = await requestFrom(peer, `${base}/api/auth/login`, { body: { email, password: 'a guess' }, headers });
    const row = await prisma.auditLog.findFirst({
      where: { action: 'auth.login_failed', metadata: { path: ['email'], equals: email } },
    });
    return { status: res.status, ip: row?.ip ?? null };
  }

  it('counts a caller on this machine by its own address, whatever X-Forwarded-For it forges, up to 429', async () => {
    const peer = freshLoopback();
    for (let i = 0; i < perAddress; i++) {
      expect(await failThrough(web, peer, { 'x-forwarded-for': freshIp() })).toEqual({ status: 401, ip: peer });
    }
    expect((await failThrough(web, peer, { 'x-forwarded-for': freshIp() })).status).toBe(429);
    expect((await failThrough(web, freshLoopback(), { 'x-forwarded-for': freshIp() })).status).toBe(401);
  });

  it("drops a browser's own copy of the web server's statement, even a validly signed one", async () => {
    const peer = freshLoopback();
    const stolen = signForwardedClient(freshIp(), TEST_INTERNAL_SECRET);
    expect(await failThrough(web, peer, { [FORWARDED_CLIENT_HEADER]: stolen })).toEqual({ status: 401, ip: peer });
  });

  it('behind a listed reverse proxy, counts the rightmost address it did not add itself: a forged left end never wins', async () => {
    const proxy = `127.66.${Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
    const browser = freshIp();
    for (let i = 0; i < perAddress; i++) {
      expect(await failThrough(behindProxy, proxy, { 'x-forwarded-for': `${freshIp()}, ${browser}` })).toEqual({
        status: 401,
        ip: browser,
      });
    }
    expect((await failThrough(behindProxy, proxy, { 'x-forwarded-for': `${freshIp()}, ${browser}` })).status).toBe(429);
    // Another browser behind the same proxy is not concerned; a caller that is not the proxy names nobody.
    expect(await failThrough(behindProxy, proxy, { 'x-forwarded-for': freshIp() })).toMatchObject({ status: 401 });
    const stranger = freshLoopback();
    expect(await failThrough(behindProxy, stranger, { 'x-forwarded-for': browser })).toEqual({ status: 401, ip: stranger });
  });
});
