import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { PrismaService } from '../persistence/prisma.service.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { bearer, createApiToken, logIn, signUp, type TestUser } from '../../../../test/support/index.js';
import { sha256Hex } from './secrets.js';

describe('API tokens', () => {
  let api: TestApp;
  let prisma: PrismaService;

  beforeAll(async () => {
    api = await startTestApp(testApiConfig());
    prisma = api.app.get(PrismaService);
  });
  afterAll(() => api.close());

  it('shows a new token once, stores only its digest, and lets it act as its user', async () => {
    const user = await signUp(api.url);
    const created = await request(api.url)
      .post('/api/auth/tokens')
      .set('Cookie', user.cookie)
      .send({ name: 'laptop cli', expiresInDays: 30 })
      .expect(201);
    const token: string = created.body.token;
    expect(token).toMatch(/^lbt_[\w-]{40,}$/);
    expect(created.body).toMatchObject({ name: 'laptop cli', prefix: token.slice(0, 10), workspaceId: null, lastUsedAt: null });
    expect(new Date(created.body.expiresAt).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);

    const row = await prisma.apiToken.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.tokenHash).toBe(sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token.slice(10));

    const me = await request(api.url).get('/api/auth/me').set(bearer(token)).expect(200);
    expect(me.body.user.id).toBe(user.userId);
    expect(me.body.workspaces.map((w: { id: string }) => w.id)).toEqual([user.workspaceId]);
    await request(api.url).get(`/api/workspaces/${user.workspaceId}`).set(bearer(token)).expect(200);

    const listed = await request(api.url).get('/api/auth/tokens').set('Cookie', user.cookie).expect(200);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).not.toHaveProperty('token');
    expect(listed.body.items[0].lastUsedAt).not.toBeNull();
  });

  it('stops working once revoked, and only its owner can revoke it', async () => {
    const user = await signUp(api.url);
    const stranger = await signUp(api.url);
    const token = await createApiToken(api.url, user.cookie);
    const [{ id }] = (await request(api.url).get('/api/auth/tokens').set(bearer(token)).expect(200)).body.items as [
      { id: string },
    ];

    await request(api.url).delete(`/api/auth/tokens/${id}`).set('Cookie', stranger.cookie).expect(404);
    await request(api.url).get('/api/auth/me').set(bearer(token)).expect(200);

    await request(api.url).delete(`/api/auth/tokens/${id}`).set('Cookie', user.cookie).expect(204);
    const refused = await request(api.url).get('/api/auth/me').set(bearer(token)).expect(401);
    expect(refused.body.error.code).toBe('UNAUTHENTICATED');
    await request(api.url).delete(`/api/auth/tokens/${id}`).set('Cookie', user.cookie).expect(404);
    expect((await request(api.url).get('/api/auth/tokens').set('Cookie', user.cookie).expect(200)).body.items).toEqual([]);
  });

  it('refuses unknown, malformed and expired tokens', async () => {
    const user = await signUp(api.url);
    const token = await createApiToken(api.url, user.cookie);
    await request(api.url)
      .get('/api/auth/me')
      .set(bearer(`${token}x`))
      .expect(401);
    await request(api.url).get('/api/auth/me').set('Authorization', 'Basic dXNlcjpwYXNz').expect(401);
    // A bad bearer header is not rescued by a good cookie.
    await request(api.url).get('/api/auth/me').set(bearer('lbt_nope')).set('Cookie', user.cookie).expect(401);
    await prisma.apiToken.updateMany({
      where: { tokenHash: sha256Hex(token) },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await request(api.url).get('/api/auth/me').set(bearer(token)).expect(401);
  });

  describe('limited to one workspace', () => {
    let user: TestUser;
    let otherWorkspaceId: string;
    let token: string;

    beforeAll(async () => {
      user = await signUp(api.url);
      otherWorkspaceId = (
        await request(api.url).post('/api/workspaces').set('Cookie', user.cookie).send({ name: 'Second' }).expect(201)
      ).body.id;
      token = await createApiToken(api.url, user.cookie, user.workspaceId);
    });

    it('sees its own workspace and answers 404 for the user’s others', async () => {
      await request(api.url).get(`/api/workspaces/${user.workspaceId}`).set(bearer(token)).expect(200);
      const hidden = await request(api.url).get(`/api/workspaces/${otherWorkspaceId}`).set(bearer(token)).expect(404);
      expect(hidden.body.error.code).toBe('NOT_FOUND');
      await request(api.url).get(`/api/workspaces/${otherWorkspaceId}/members`).set(bearer(token)).expect(404);
      const list = await request(api.url).get('/api/workspaces').set(bearer(token)).expect(200);
      expect(list.body.items.map((w: { id: string }) => w.id)).toEqual([user.workspaceId]);
      // The cookie still sees both.
      const all = await request(api.url).get('/api/workspaces').set('Cookie', user.cookie).expect(200);
      expect(all.body.items.map((w: { id: string }) => w.id).sort()).toEqual([user.workspaceId, otherWorkspaceId].sort());
    });

    it('cannot widen itself: no new workspaces, no tokens for other workspaces', async () => {
      await request(api.url).post('/api/workspaces').set(bearer(token)).send({ name: 'Escape' }).expect(403);
      await request(api.url).post('/api/auth/tokens').set(bearer(token)).send({ name: 'wider' }).expect(403);
      await request(api.url)
        .post('/api/auth/tokens')
        .set(bearer(token))
        .send({ name: 'other', workspaceId: otherWorkspaceId })
        .expect(403);
      await request(api.url)
        .post('/api/auth/tokens')
        .set(bearer(token))
        .send({ name: 'same', workspaceId: user.workspaceId })
        .expect(201);
    });

    it('cannot be created for a workspace the caller is not in', async () => {
      const stranger = await signUp(api.url);
      const res = await request(api.url)
        .post('/api/auth/tokens')
        .set('Cookie', stranger.cookie)
        .send({ name: 'foreign', workspaceId: user.workspaceId })
        .expect(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    });
  });

  describe('of an instance admin', () => {
    const appToken = 'admin-token-test-0123456789abcdef-0123';
    // Unique per run: sign-in attempts are counted per email in the Redis every suite shares.
    const adminEmail = `root-${randomUUID().slice(0, 8)}@example.test`;
    let database: IsolatedDatabase;
    let adminApi: TestApp;
    let cookie: string;

    beforeAll(async () => {
      // The first admin exists only on an empty database: this suite gets one of its own.
      database = await createIsolatedDatabase();
      adminApi = await startTestApp(
        testApiConfig({ DATABASE_URL: database.url, LAZYBOY_APP_TOKEN: appToken, LAZYBOY_ADMIN_EMAIL: adminEmail }),
      );
      cookie = await logIn(adminApi.url, adminEmail, appToken);
    });
    afterAll(async () => {
      await adminApi?.close();
      await database?.drop();
    });

    it('reach admin routes only when not limited to one workspace', async () => {
      const me = await request(adminApi.url).get('/api/auth/me').set('Cookie', cookie).expect(200);
      const workspaceId: string = me.body.workspaces[0].id;
      const full = await createApiToken(adminApi.url, cookie);
      const limited = await createApiToken(adminApi.url, cookie, workspaceId);

      await request(adminApi.url).get('/api/admin/users').set(bearer(full)).expect(200);
      const refused = await request(adminApi.url).get('/api/admin/users').set(bearer(limited)).expect(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      // Still good for its own workspace.
      await request(adminApi.url).get(`/api/workspaces/${workspaceId}`).set(bearer(limited)).expect(200);
    });
  });
});
