import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { PrismaService } from '../persistence/prisma.service.js';
import { freshIp } from '../testing/test-addresses.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { signUp, type TestUser, sleep } from '../../../../test/support/index.js';
import { KNOWN_DEVICE_COOKIE } from './known-device.js';

// The per-account limit on failed sign-ins: counted per email from anywhere, so guesses spread over many
// addresses are stopped too, with a cool-down that a known device of the account's owner never waits for.

function setCookiesOf(res: request.Response): string[] {
  const header = res.headers['set-cookie'] as unknown;
  return Array.isArray(header) ? (header as string[]) : [];
}

/** `lazyboy_device=…` from a sign-in's answer, ready for a Cookie header. */
function deviceCookieOf(res: request.Response): string {
  const pair = setCookiesOf(res)
    .map((header) => header.split(';')[0]!.trim())
    .find((cookie) => cookie.startsWith(`${KNOWN_DEVICE_COOKIE}=`));
  if (!pair) throw new Error('no known-device cookie was set');
  return pair;
}

describe('the per-account limit on failed sign-ins', () => {
  const failures = 10;
  // Longer than any run of this suite: a lock set here holds for all of it.
  const firstWait = 600;
  let api: TestApp;
  let prisma: PrismaService;

  beforeAll(async () => {
    api = await startTestApp(
      testApiConfig({
        // Callers' made-up addresses (freshIp) are named in X-Forwarded-For, believed as from a local proxy.
        LAZYBOY_TRUSTED_PROXIES: '127.0.0.1',
        LAZYBOY_ACCOUNT_LOGIN_FAILURES: String(failures),
        LAZYBOY_ACCOUNT_COOLDOWN_SECONDS: String(firstWait),
      }),
    );
    prisma = api.app.get(PrismaService);
  });
  afterAll(() => api.close());

  const login = (ip: string, email: string, password: string, cookie?: string) => {
    const req = request(api.url).post('/api/auth/login').set('X-Forwarded-For', ip);
    if (cookie) req.set('Cookie', cookie);
    return req.send({ email, password });
  };

  /** Wrong guesses at `email` spread over six addresses, as many per address as the per-address limit allows. */
  async function strangerGuesses(email: string, count: number): Promise<request.Response[]> {
    const addresses = Array.from({ length: 6 }, freshIp);
    const answers = [];
    for (let i = 0; i < count; i++) answers.push(await login(addresses[i % 6]!, email, `guess ${i}`));
    return answers;
  }

  /** Signs the user in once from a browser of their own: its known-device cookie. */
  async function ownersBrowser(user: TestUser): Promise<string> {
    return deviceCookieOf(await login(freshIp(), user.email, user.password).expect(200));
  }

  it('stops 60 wrong guesses from 6 addresses after the allowance, with Retry-After, and audits the lock once', async () => {
    const user = await signUp(api.url);
    const answers = await strangerGuesses(user.email, 60);
    expect(answers.map((res) => res.status)).toEqual([
      ...Array<number>(failures).fill(401),
      ...Array<number>(60 - failures).fill(429),
    ]);
    for (const limited of answers.slice(failures)) {
      expect(limited.body.error.code).toBe('RATE_LIMITED');
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(firstWait);
    }
    // A browser the account never signed in from waits too, with the right password.
    await login(freshIp(), user.email, user.password).expect(429);
    const locks = await prisma.auditLog.findMany({ where: { action: 'auth.login_locked', targetId: user.userId } });
    expect(locks.map((row) => row.metadata)).toEqual([{ email: user.email, scope: 'account', failures, waitSeconds: firstWait }]);
  });

  it('limits an unknown email exactly like a known one', async () => {
    const user = await signUp(api.url);
    const unknown = `nobody-${randomUUID()}@example.test`;
    const known = await strangerGuesses(user.email, failures + 2);
    const unknownAnswers = await strangerGuesses(unknown, failures + 2);
    expect(unknownAnswers.map((res) => res.status)).toEqual(known.map((res) => res.status));
    const shape = (res: request.Response) => ({
      status: res.status,
      body: { ...res.body, error: { ...res.body.error, details: Object.keys(res.body.error.details ?? {}) } },
      retryAfter: res.headers['retry-after'] !== undefined,
    });
    expect(shape(unknownAnswers.at(-1)!)).toEqual(shape(known.at(-1)!));
    expect(shape(unknownAnswers[0]!)).toEqual(shape(known[0]!));
    const lock = await prisma.auditLog.findFirstOrThrow({
      where: { action: 'auth.login_locked', metadata: { path: ['email'], equals: unknown } },
    });
    expect(lock.targetId).toBeNull();
  });

  it('lets the owner in from a browser that signed in before, while a stranger keeps the account locked', async () => {
    const user = await signUp(api.url);
    const device = await ownersBrowser(user);
    const strangerIp = freshIp();
    for (let i = 0; i < failures; i++) await login(freshIp(), user.email, `guess ${i}`).expect(401);
    await login(strangerIp, user.email, 'one more guess').expect(429);

    // The owner's browser gets in, from the stranger's very address even, and again after a typo.
    const res = await login(strangerIp, user.email, user.password, device).expect(200);
    expect(res.body.user.id).toBe(user.userId);
    await login(strangerIp, user.email, 'a typo', device).expect(401);
    const again = await login(freshIp(), user.email, user.password, device).expect(200);
    // The owner getting in does not open the account to the stranger.
    await login(strangerIp, user.email, 'yet another guess').expect(429);

    // The known-device cookie is the account's own: another account's, or an altered one, is no key.
    const other = await signUp(api.url);
    const othersDevice = await ownersBrowser(other);
    await login(freshIp(), user.email, user.password, othersDevice).expect(429);
    // Not the last character: in base64url its low bits may be padding, and the cookie would still verify.
    const at = device.length - 5;
    const altered = `${device.slice(0, at)}${device[at] === 'A' ? 'B' : 'A'}${device.slice(at + 1)}`;
    await login(freshIp(), user.email, user.password, altered).expect(429);
    await login(freshIp(), user.email, user.password, deviceCookieOf(again)).expect(200);
  });

  it('sets the known-device cookie httpOnly, SameSite=Lax, for the sign-in route only', async () => {
    const user = await signUp(api.url);
    const res = await login(freshIp(), user.email, user.password).expect(200);
    const header = setCookiesOf(res).find((cookie) => cookie.startsWith(`${KNOWN_DEVICE_COOKIE}=`))!;
    expect(header).toContain('HttpOnly');
    expect(header).toContain('SameSite=Lax');
    expect(header).toContain('Path=/api/auth/login');
    expect(header).toContain(`Max-Age=${365 * 24 * 3600}`);
    expect(header).not.toContain('Secure');
    // Sign-up signs in too: that browser is known from the start.
    const signup = await request(api.url)
      .post('/api/auth/signup')
      .send({ email: `${randomUUID()}@example.test`, password: 'long enough password', displayName: 'New' })
      .expect(201);
    expect(deviceCookieOf(signup)).toMatch(new RegExp(`^${KNOWN_DEVICE_COOKIE}=[\\w-]{22}\\.\\d+\\.[\\w-]{43}$`));
  });

  it("gives a known device a cool-down of its own, which never holds the account's other sign-ins back", async () => {
    const user = await signUp(api.url);
    const device = await ownersBrowser(user);
    const answers = [];
    for (let i = 0; i < failures + 1; i++) answers.push(await login(freshIp(), user.email, `typo ${i}`, device));
    expect(answers.map((res) => res.status)).toEqual([...Array<number>(failures).fill(401), 429]);
    expect(answers.at(-1)!.body.error.message).toMatch(/this browser/);
    await login(freshIp(), user.email, user.password).expect(200);
  });

  it("forgets an account's failures once it signs in", async () => {
    const user = await signUp(api.url);
    expect((await strangerGuesses(user.email, failures - 1)).map((res) => res.status)).not.toContain(429);
    await login(freshIp(), user.email, user.password).expect(200);
    const after = await strangerGuesses(user.email, failures + 1);
    expect(after.map((res) => res.status)).toEqual([...Array<number>(failures).fill(401), 429]);
  });
});

describe('the per-account cool-down running out', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await startTestApp(
      testApiConfig({
        LAZYBOY_TRUSTED_PROXIES: '127.0.0.1',
        LAZYBOY_ACCOUNT_LOGIN_FAILURES: '1',
        // Long enough that a busy CI machine does not outlast it between two requests, short enough to wait out.
        LAZYBOY_ACCOUNT_COOLDOWN_SECONDS: '8',
        LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS: '8',
        LAZYBOY_ACCOUNT_FAILURE_WINDOW_SECONDS: '60',
      }),
    );
  });
  afterAll(() => api.close());

  it('lets the owner in once the wait is over, however often a stranger knocked during it: no lock for good', async () => {
    const user = await signUp(api.url);
    const login = (password: string) =>
      request(api.url).post('/api/auth/login').set('X-Forwarded-For', freshIp()).send({ email: user.email, password });
    await login('a guess').expect(401);
    const refused = await login('another guess').expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(8);
    // Knocks during the wait are refused and not counted: they make it no longer.
    const knocks = await Promise.all(Array.from({ length: 20 }, (_, i) => login(`knock ${i}`)));
    expect(knocks.map((res) => res.status)).toEqual(Array<number>(20).fill(429));
    // The owner, as soon as the wait lets anyone in.
    let status = 429;
    for (let tries = 0; status === 429 && tries < 200; tries++) {
      await sleep(100);
      status = (await login(user.password)).status;
    }
    expect(status).toBe(200);
  });
});
