import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { PrismaService } from '../persistence/prisma.service.js';
import { freshIp } from '../testing/test-addresses.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { logIn, sessionCookieOf, signUp } from '../../../../test/support/index.js';
import { sha256Hex } from './secrets.js';

/**
 * Each test names a made-up client address of its own (freshIp) in X-Forwarded-For, so rate limits never
 * collide: these suites' APIs believe it from loopback, as from a reverse proxy on this machine.
 */
const LOCAL_PROXY = { LAZYBOY_TRUSTED_PROXIES: '127.0.0.1' };

function setCookiesOf(res: request.Response): string[] {
  const header = res.headers['set-cookie'] as unknown;
  return Array.isArray(header) ? (header as string[]) : [];
}

describe('sign-up, sign-in and sign-out', () => {
  let api: TestApp;
  let prisma: PrismaService;

  beforeAll(async () => {
    api = await startTestApp(testApiConfig(LOCAL_PROXY));
    prisma = api.app.get(PrismaService);
  });
  afterAll(() => api.close());

  it('signs a new user up with a personal workspace they own, and signs them in', async () => {
    const email = `New-${randomUUID()}@Example.test`;
    const res = await request(api.url)
      .post('/api/auth/signup')
      .send({ email, password: 'long enough password', displayName: 'Ada' })
      .expect(201);
    expect(res.body.user).toMatchObject({ email: email.toLowerCase(), displayName: 'Ada', isAdmin: false });
    expect(res.body.workspaces).toEqual([
      { id: expect.any(String), name: 'Ada', slug: expect.stringMatching(/^new-/), role: 'owner' },
    ]);

    const [setCookie] = setCookiesOf(res);
    expect(setCookie).toMatch(/^lazyboy_session=[0-9a-f-]{36}\.[\w-]+; /);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).toContain(`Max-Age=${720 * 3600}`);
    expect(setCookie).not.toContain('Secure');

    const cookie = sessionCookieOf(setCookiesOf(res))!;
    const me = await request(api.url).get('/api/auth/me').set('Cookie', cookie).expect(200);
    expect(me.body).toEqual(res.body);

    // The database holds the secret's digest only.
    const [loginSessionId, secret] = cookie.slice('lazyboy_session='.length).split('.') as [string, string];
    const row = await prisma.loginSession.findUniqueOrThrow({ where: { id: loginSessionId } });
    expect(row.secretHash).toBe(sha256Hex(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(await prisma.auditLog.count({ where: { action: 'auth.signup', actorUserId: res.body.user.id } })).toBe(1);
  });

  it('refuses a second account for the same email, whatever its case', async () => {
    const user = await signUp(api.url);
    const res = await request(api.url)
      .post('/api/auth/signup')
      .send({ email: user.email.toUpperCase(), password: 'another password', displayName: 'Copy' })
      .expect(409);
    expect(res.body.error.code).toBe('CONFLICT');
  });

  it('refuses short passwords and malformed emails', async () => {
    const short = await request(api.url)
      .post('/api/auth/signup')
      .send({ email: `${randomUUID()}@example.test`, password: 'short', displayName: 'Shorty' })
      .expect(400);
    expect(short.body.error.code).toBe('VALIDATION_FAILED');
    await request(api.url)
      .post('/api/auth/signup')
      .send({ email: 'nope', password: 'long enough', displayName: 'X' })
      .expect(400);
    await request(api.url).post('/api/auth/login').send({ email: 'nope' }).expect(400);
  });

  it("refuses writes sent by another site's page, signing in included, but not its own pages", async () => {
    const user = await signUp(api.url);
    const evil = 'http://evil.example';
    const login = await request(api.url)
      .post('/api/auth/login')
      .set('Origin', evil)
      .send({ email: user.email, password: user.password })
      .expect(403);
    expect(login.body.error.code).toBe('FORBIDDEN');
    expect(setCookiesOf(login)).toEqual([]);
    await request(api.url).post('/api/auth/logout').set('Cookie', user.cookie).set('Origin', evil).expect(403);
    // Nothing changed: the session is still good. Reading is no write, and a page of this address may write.
    await request(api.url).get('/api/auth/me').set('Cookie', user.cookie).set('Origin', evil).expect(200);
    await request(api.url)
      .post('/api/auth/login')
      .set('Origin', new URL(api.url).origin)
      .send({ email: user.email, password: user.password })
      .expect(200);
  });

  it('logs in with email and password, and logging out makes the cookie useless', async () => {
    const user = await signUp(api.url);
    const before = new Date();
    const res = await request(api.url).post('/api/auth/login').send({ email: user.email, password: user.password }).expect(200);
    expect(res.body.user.id).toBe(user.userId);
    const cookie = sessionCookieOf(setCookiesOf(res))!;
    expect(cookie).not.toBe(user.cookie);
    const account = await prisma.user.findUniqueOrThrow({ where: { id: user.userId } });
    expect(account.lastLoginAt!.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1);

    await request(api.url).get('/api/auth/me').set('Cookie', cookie).expect(200);
    const out = await request(api.url).post('/api/auth/logout').set('Cookie', cookie).expect(204);
    expect(setCookiesOf(out)[0]).toMatch(/^lazyboy_session=; Max-Age=0/);
    const after = await request(api.url).get('/api/auth/me').set('Cookie', cookie).expect(401);
    expect(after.body.error.code).toBe('UNAUTHENTICATED');
    // Only that session ended: the sign-up's own session still works.
    await request(api.url).get('/api/auth/me').set('Cookie', user.cookie).expect(200);
    expect(await prisma.auditLog.count({ where: { action: 'auth.logout', actorUserId: user.userId } })).toBe(1);
  });

  it('answers a wrong password and an unknown email alike, and audits both without the password', async () => {
    const user = await signUp(api.url);
    const ip = freshIp();
    const wrong = await request(api.url)
      .post('/api/auth/login')
      .set('X-Forwarded-For', ip)
      .send({ email: user.email, password: 'wrong-password-123' })
      .expect(401);
    const unknownEmail = `nobody-${randomUUID()}@example.test`;
    const unknown = await request(api.url)
      .post('/api/auth/login')
      .set('X-Forwarded-For', ip)
      .send({ email: unknownEmail, password: 'wrong-password-456' })
      .expect(401);
    expect(wrong.body).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'wrong email or password' } });
    expect(unknown.body).toEqual(wrong.body);
    expect(setCookiesOf(wrong)).toEqual([]);

    const failures = await prisma.auditLog.findMany({ where: { action: 'auth.login_failed', ip }, orderBy: { id: 'asc' } });
    expect(failures.map((row) => [row.actorUserId, row.metadata])).toEqual([
      [user.userId, { email: user.email, reason: 'wrong_password' }],
      [null, { email: unknownEmail, reason: 'unknown_email' }],
    ]);
    expect(JSON.stringify(failures.map((row) => row.metadata))).not.toContain('wrong-password');

    await request(api.url)
      .post('/api/auth/login')
      .set('X-Forwarded-For', ip)
      .send({ email: user.email, password: user.password })
      .expect(200);
    const success = await prisma.auditLog.findFirstOrThrow({ where: { action: 'auth.login', ip } });
    expect(success).toMatchObject({ actorUserId: user.userId, targetType: 'user', targetId: user.userId });
  });

  it('keeps disabled users out, with their existing sessions', async () => {
    const user = await signUp(api.url);
    await prisma.user.update({ where: { id: user.userId }, data: { disabledAt: new Date() } });
    const res = await request(api.url)
      .post('/api/auth/login')
      .set('X-Forwarded-For', freshIp())
      .send({ email: user.email, password: user.password })
      .expect(401);
    expect(res.body.error.message).toBe('wrong email or password');
    await request(api.url).get('/api/auth/me').set('Cookie', user.cookie).expect(401);
  });

  it('lets nobody in without credentials, but keeps the health probes public', async () => {
    for (const path of ['/api/auth/me', '/api/workspaces', '/api/auth/tokens']) {
      const res = await request(api.url).get(path).expect(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    }
    await request(api.url)
      .get('/api/auth/me')
      .set('Cookie', `lazyboy_session=${randomUUID()}.${'x'.repeat(43)}`)
      .expect(401);
    await request(api.url).get('/api/auth/me').set('Cookie', 'lazyboy_session=garbage').expect(401);
    await request(api.url).post('/api/auth/logout').expect(401);
    await request(api.url).get('/healthz').expect(200);
    await request(api.url).get('/readyz').expect(200);
  });

  it('keeps concurrent callers apart', async () => {
    const users = await Promise.all([signUp(api.url), signUp(api.url), signUp(api.url)]);
    const answers = await Promise.all(
      [...users, ...users, ...users].map(async (user) => {
        const res = await request(api.url).get('/api/auth/me').set('Cookie', user.cookie).expect(200);
        return [user.userId, res.body.user.id as string];
      }),
    );
    for (const [expected, actual] of answers) expect(actual).toBe(expected);
  });

  it('forges no session from a known id with the wrong secret', async () => {
    const user = await signUp(api.url);
    const id = user.cookie.slice('lazyboy_session='.length).split('.')[0]!;
    await request(api.url)
      .get('/api/auth/me')
      .set('Cookie', `lazyboy_session=${id}.${'A'.repeat(43)}`)
      .expect(401);
    // A second sign-in gives a second, independent session.
    const second = await logIn(api.url, user.email, user.password);
    await request(api.url).get('/api/auth/me').set('Cookie', second).expect(200);
  });
});

describe('sign-in rate limit and cookie settings', () => {
  const attempts = 3;
  let api: TestApp;

  beforeAll(async () => {
    api = await startTestApp(
      testApiConfig({
        ...LOCAL_PROXY,
        LAZYBOY_LOGIN_ATTEMPTS: String(attempts),
        LAZYBOY_SECURE_COOKIE: 'true',
        LAZYBOY_SESSION_TTL_HOURS: '2',
      }),
    );
  });
  afterAll(() => api.close());

  const login = (ip: string, email: string, password: string) =>
    request(api.url).post('/api/auth/login').set('X-Forwarded-For', ip).send({ email, password });

  it('answers 429 with Retry-After once an email has failed too often from one address', async () => {
    const user = await signUp(api.url);
    const ip = freshIp();
    for (let i = 0; i < attempts; i++) await login(ip, user.email, 'not the password').expect(401);
    const limited = await login(ip, user.email, user.password).expect(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // The same account from another address, and another account from this one, are not blocked.
    await login(freshIp(), user.email, user.password).expect(200);
    const other = await signUp(api.url);
    await login(ip, other.email, other.password).expect(200);
  });

  it('counts parallel guesses before checking them, and audits one refusal per window', async () => {
    const user = await signUp(api.url);
    const ip = freshIp();
    const guesses = await Promise.all(Array.from({ length: attempts + 5 }, (_, i) => login(ip, user.email, `wrong guess ${i}`)));
    const statuses = guesses.map((res) => res.status);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(attempts);
    expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    await login(ip, user.email, user.password).expect(429);
    const refusals = await api.app
      .get(PrismaService)
      .auditLog.count({ where: { action: 'auth.login_failed', ip, metadata: { path: ['reason'], equals: 'rate_limited' } } });
    expect(refusals).toBe(1);
  });

  it('forgets the failures of an email once it signs in', async () => {
    const user = await signUp(api.url);
    const ip = freshIp();
    for (let i = 0; i < attempts - 1; i++) await login(ip, user.email, 'not the password').expect(401);
    await login(ip, user.email, user.password).expect(200);
    for (let i = 0; i < attempts - 1; i++) await login(ip, user.email, 'not the password').expect(401);
    await login(ip, user.email, user.password).expect(200);
  });

  it('caps the failures of one address across emails', async () => {
    const ip = freshIp();
    // Five times the per-email allowance, spread over emails that are each below their own limit.
    for (let i = 0; i < attempts * 5; i++) await login(ip, `spray-${i}-${randomUUID()}@example.test`, 'guess-123').expect(401);
    const user = await signUp(api.url);
    const limited = await login(ip, user.email, user.password).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('marks the cookie Secure and gives it the configured lifetime', async () => {
    const res = await request(api.url)
      .post('/api/auth/signup')
      .send({ email: `${randomUUID()}@example.test`, password: 'long enough password', displayName: 'Sec' })
      .expect(201);
    const [setCookie, knownDevice] = setCookiesOf(res);
    expect(setCookie).toContain('Secure');
    expect(setCookie).toContain('Max-Age=7200');
    expect(knownDevice).toMatch(/^lazyboy_device=.*; Secure/);
  });
});

describe('sign-up rate limit', () => {
  const allowed = 3;
  let api: TestApp;

  beforeAll(async () => {
    api = await startTestApp(testApiConfig({ ...LOCAL_PROXY, LAZYBOY_SIGNUPS_PER_HOUR: String(allowed) }));
  });
  afterAll(() => api.close());

  const signup = (ip: string) =>
    request(api.url)
      .post('/api/auth/signup')
      .set('X-Forwarded-For', ip)
      .send({ email: `${randomUUID()}@example.test`, password: 'long enough password', displayName: 'Many' });

  it('lets one address make a few accounts an hour, then answers 429 and makes none', async () => {
    const ip = freshIp();
    for (let i = 0; i < allowed; i++) await signup(ip).expect(201);
    const refused = await signup(ip).expect(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await api.app.get(PrismaService).auditLog.count({ where: { action: 'auth.signup', ip } })).toBe(allowed);
    // Another address is not concerned.
    await signup(freshIp()).expect(201);
  });

  it('counts a burst in parallel before any of it is done', async () => {
    const ip = freshIp();
    const statuses = (await Promise.all(Array.from({ length: allowed + 4 }, () => signup(ip)))).map((res) => res.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(allowed);
    expect(statuses.filter((status) => status !== 201 && status !== 429)).toEqual([]);
  });
});
