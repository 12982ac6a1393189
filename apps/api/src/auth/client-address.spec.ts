import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { FORWARDED_CLIENT_HEADER, FORWARDED_CLIENT_MAX_SKEW_MS, signForwardedClient } from '@lazyboy/contracts/node';
import { PrismaService } from '../persistence/prisma.service.js';
import { freshIp, freshLoopback, requestFrom } from '../testing/test-addresses.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { TEST_INTERNAL_SECRET, testApiConfig } from '../testing/test-config.js';

// Whom the API counts a request against (rate limits, audit log). Every caller here is on this machine,
// like the agents' browsers are: each from a loopback address of its own, which is all the API may believe
// unless the web server vouches for the browser behind it, or the caller is a listed proxy.

/** A failed sign-in for a fresh email, sent from `peer`; answers the status and the address it was audited with. */
async function failFrom(app: TestApp, peer: string, headers: Record<string, string> = {}) {
  const email = `nobody-${randomUUID()}@example.test`;
  const res = await requestFrom(peer, `${app.url}/api/auth/login`, { body: { email, password: 'a guess' }, headers });
  const row = await app.app.get(PrismaService).auditLog.findFirst({
    where: { action: 'auth.login_failed', metadata: { path: ['email'], equals: email } },
  });
  return { status: res.status, body: res.body, ip: row?.ip ?? null };
}

describe('the client address the API counts', () => {
  const attempts = 2;
  /** As `lazyboy up` starts it: no proxy listed. */
  let api: TestApp;

  beforeAll(async () => {
    api = await startTestApp(testApiConfig({ LAZYBOY_LOGIN_ATTEMPTS: String(attempts) }));
  });
  afterAll(() => api.close());

  it('counts a caller on this machine by its own address, whatever X-Forwarded-For it sends', async () => {
    const peer = freshLoopback();
    const allowance = attempts * 5;
    for (let i = 0; i < allowance; i++) {
      const forwarded = i % 2 === 0 ? `203.0.113.${i}` : `198.51.100.1, 203.0.113.${i}`;
      expect(await failFrom(api, peer, { 'x-forwarded-for': forwarded })).toMatchObject({ status: 401, ip: peer });
    }
    const limited = await failFrom(api, peer, { 'x-forwarded-for': freshIp() });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    // Another caller is not concerned.
    expect((await failFrom(api, freshLoopback())).status).toBe(401);
  });

  it("believes the web server's signed statement of the browser's address, over any X-Forwarded-For", async () => {
    const browser = freshIp();
    const statement = signForwardedClient(browser, TEST_INTERNAL_SECRET);
    expect(
      await failFrom(api, freshLoopback(), { [FORWARDED_CLIENT_HEADER]: statement, 'x-forwarded-for': freshIp() }),
    ).toMatchObject({
      status: 401,
      ip: browser,
    });
  });

  it('ignores a statement with a bad or missing signature, or a stale one, and counts the caller itself', async () => {
    const browser = freshIp();
    const good = signForwardedClient(browser, TEST_INTERNAL_SECRET);
    const [, issuedAt, mac] = good.split(';') as [string, string, string];
    const refused = [
      signForwardedClient(browser, `${TEST_INTERNAL_SECRET}-not`),
      signForwardedClient(browser, TEST_INTERNAL_SECRET, Date.now() - 2 * FORWARDED_CLIENT_MAX_SKEW_MS),
      `${freshIp()};${issuedAt};${mac}`,
      `${browser};${issuedAt}`,
      `${browser};${issuedAt};`,
      browser,
    ];
    for (const statement of refused) {
      const peer = freshLoopback();
      expect(await failFrom(api, peer, { [FORWARDED_CLIENT_HEADER]: statement })).toMatchObject({ status: 401, ip: peer });
    }
  });
});

describe('the client address behind a reverse proxy directly in front of the API', () => {
  /** With a reverse proxy directly in front of it, at 127.77.0.0/16. */
  let proxied: TestApp;

  beforeAll(async () => {
    proxied = await startTestApp(testApiConfig({ LAZYBOY_TRUSTED_PROXIES: '127.77.0.0/16' }));
  });
  afterAll(() => proxied.close());

  it("with LAZYBOY_TRUSTED_PROXIES, believes a listed proxy's X-Forwarded-For from the right, and nobody else's", async () => {
    const browser = freshIp();
    const listed = `127.77.${Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
    expect(await failFrom(proxied, listed, { 'x-forwarded-for': `${freshIp()}, ${browser}` })).toMatchObject({
      status: 401,
      ip: browser,
    });
    // Behind a second listed hop too; and a proxy that names nothing is itself the client.
    expect(await failFrom(proxied, listed, { 'x-forwarded-for': `${browser}, 127.77.1.1` })).toMatchObject({ ip: browser });
    expect(await failFrom(proxied, listed)).toMatchObject({ ip: listed });
    const unlisted = `127.78.${Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
    expect(await failFrom(proxied, unlisted, { 'x-forwarded-for': browser })).toMatchObject({ status: 401, ip: unlisted });
  });
});
