import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { listApiRoutes } from '../openapi/api-routes.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { logIn, logInFirstAdmin, signUp, type TestUser } from '../../../../test/support/index.js';

// Its own address per suite: the per-account sign-in limit lives in the one Redis every suite shares.
const ADMIN_EMAIL = `root-${randomUUID().slice(0, 8)}@example.test`;
const APP_TOKEN = `app-token-${randomUUID()}`;

/** The admin routes this suite expects; a new one must be added here (and to the 403 check below). */
const ADMIN_ROUTES = [
  'GET /api/admin/audit',
  'GET /api/admin/computers',
  'POST /api/admin/computers/:computerId/stop',
  'GET /api/admin/runs',
  'POST /api/admin/runs/:runId/stop',
  'GET /api/admin/settings',
  'PATCH /api/admin/settings',
  'GET /api/admin/users',
  'PATCH /api/admin/users/:userId',
  'GET /api/admin/workspaces',
  'PATCH /api/admin/workspaces/:workspaceId/members/:userId',
  'POST /api/admin/vault-key/reseal',
];

interface Caller {
  cookie: string;
}

describe('admin dashboard endpoints', () => {
  let database: IsolatedDatabase;
  let api: TestApp;
  let admin: Caller & { userId: string };

  beforeAll(async () => {
    // An empty database of our own: LAZYBOY_APP_TOKEN makes its first user an instance admin.
    database = await createIsolatedDatabase();
    // testApiConfig runs no executor: messages leave their runs queued, so stopping them is deterministic.
    api = await startTestApp(
      testApiConfig({ DATABASE_URL: database.url, LAZYBOY_APP_TOKEN: APP_TOKEN, LAZYBOY_ADMIN_EMAIL: ADMIN_EMAIL }),
    );
    const cookie = await logInFirstAdmin(api.url, ADMIN_EMAIL, APP_TOKEN);
    const me = await request(api.url).get('/api/auth/me').set('Cookie', cookie).expect(200);
    expect(me.body.user).toMatchObject({ email: ADMIN_EMAIL, isAdmin: true });
    admin = { cookie, userId: me.body.user.id };
  });
  afterAll(async () => {
    await api?.close();
    await database?.drop();
  });

  const as = (caller: Caller) => ({
    get: (path: string) => request(api.url).get(path).set('Cookie', caller.cookie),
    post: (path: string, body: object = {}) => request(api.url).post(path).set('Cookie', caller.cookie).send(body),
    patch: (path: string, body: object) => request(api.url).patch(path).set('Cookie', caller.cookie).send(body),
  });

  async function auditRows(
    action: string,
  ): Promise<{ action: string; targetId: string; actorUserId: string; details: object }[]> {
    return (
      await as(admin)
        .get(`/api/admin/audit?action=${encodeURIComponent(action)}&limit=50`)
        .expect(200)
    ).body.items;
  }

  /** An agent, a chat and one message: the message's run stays queued (no runner). */
  async function queuedRun(owner: TestUser): Promise<{ agentId: string; runId: string }> {
    const agent = await as(owner).post(`/api/workspaces/${owner.workspaceId}/agents`, {
      name: `Agent ${randomUUID().slice(0, 8)}`,
    });
    expect(agent.status).toBe(201);
    const chat = await as(owner).post(`/api/agents/${agent.body.id}/chats`).expect(201);
    const posted = await as(owner)
      .post(`/api/chats/${chat.body.id}/messages`, { text: 'hello there', clientNonce: `nonce-${randomUUID()}` })
      .expect(202);
    expect(posted.body.run.status).toBe('queued');
    return { agentId: agent.body.id, runId: posted.body.run.id };
  }

  it('answers 403 FORBIDDEN to signed-in users who are not instance admins, on every admin route', async () => {
    const bob = await signUp(api.url);
    const adminRoutes = listApiRoutes(api.app).filter((route) => route.admin);
    expect(adminRoutes.map((route) => `${route.method} ${route.path}`).sort()).toEqual([...ADMIN_ROUTES].sort());
    for (const route of adminRoutes) {
      const path = route.params.reduce((p, param) => p.replace(`:${param}`, randomUUID()), route.path);
      const method = route.method.toLowerCase() as 'get' | 'post' | 'patch';
      const res = await request(api.url)[method](path).set('Cookie', bob.cookie).send({ role: 'member', isAdmin: true });
      expect({ route: `${route.method} ${route.path}`, status: res.status, code: res.body.error?.code }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 403,
        code: 'FORBIDDEN',
      });
      const anonymous = await request(api.url)[method](path).send({});
      expect(anonymous.status).toBe(401);
    }
  });

  it('documents every admin route in the OpenAPI document', async () => {
    const doc = await request(api.url).get('/api/docs').expect(200);
    const paths = doc.body.paths as Record<string, Record<string, { responses: object }>>;
    for (const route of ADMIN_ROUTES) {
      const [method, path] = route.split(' ') as [string, string];
      expect(paths[path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[method.toLowerCase()]).toBeDefined();
    }
  });

  it('lists every user with memberships and every workspace with its counts', async () => {
    const bob = await signUp(api.url);
    await queuedRun(bob);
    const users = await as(admin).get('/api/admin/users?limit=200').expect(200);
    const bobView = users.body.items.find((u: { id: string }) => u.id === bob.userId);
    expect(bobView).toMatchObject({
      email: bob.email,
      displayName: bob.displayName,
      isAdmin: false,
      disabledAt: null,
      lastLoginAt: expect.any(String),
      memberships: [expect.objectContaining({ workspaceId: bob.workspaceId, role: 'owner' })],
    });
    expect(users.body.items.find((u: { id: string }) => u.id === admin.userId)).toMatchObject({ isAdmin: true });

    // Newest first, paged by id.
    const first = await as(admin).get('/api/admin/users?limit=1').expect(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.nextBefore).toBe(first.body.items[0].id);
    const second = await as(admin).get(`/api/admin/users?limit=1&before=${first.body.nextBefore}`).expect(200);
    expect(second.body.items[0].id < first.body.items[0].id).toBe(true);

    const workspaces = await as(admin).get('/api/admin/workspaces').expect(200);
    expect(workspaces.body.items.find((w: { id: string }) => w.id === bob.workspaceId)).toMatchObject({
      memberCount: 1,
      agentCount: 1,
      createdAt: expect.any(String),
    });
    await as(admin).get('/api/admin/users?limit=0').expect(400);
  });

  it('grants and revokes instance admin, writing an audit row for each change', async () => {
    const bob = await signUp(api.url);
    await as(bob).get('/api/admin/users').expect(403);

    const granted = await as(admin).patch(`/api/admin/users/${bob.userId}`, { isAdmin: true }).expect(200);
    expect(granted.body).toMatchObject({ id: bob.userId, isAdmin: true });
    await as(bob).get('/api/admin/users').expect(200);
    const rows = (await auditRows('admin.user.update')).filter((row) => row.targetId === bob.userId);
    expect(rows).toEqual([expect.objectContaining({ actorUserId: admin.userId, details: { isAdmin: true } })]);

    // The same value again changes nothing and writes nothing.
    await as(admin).patch(`/api/admin/users/${bob.userId}`, { isAdmin: true }).expect(200);
    expect((await auditRows('admin.user.update')).filter((row) => row.targetId === bob.userId)).toHaveLength(1);

    await as(admin).patch(`/api/admin/users/${bob.userId}`, { isAdmin: false }).expect(200);
    await as(bob).get('/api/admin/users').expect(403);
    expect((await auditRows('admin.user.update')).filter((row) => row.targetId === bob.userId)[0]).toMatchObject({
      details: { isAdmin: false },
    });

    await as(admin).patch(`/api/admin/users/${randomUUID()}`, { isAdmin: true }).expect(404);
    await as(admin).patch(`/api/admin/users/${bob.userId}`, {}).expect(400);
  });

  it('refuses to let an admin demote or disable themselves (409)', async () => {
    const demote = await as(admin).patch(`/api/admin/users/${admin.userId}`, { isAdmin: false }).expect(409);
    expect(demote.body.error).toMatchObject({ code: 'CONFLICT', reason: 'own_admin_rights' });
    const disable = await as(admin).patch(`/api/admin/users/${admin.userId}`, { disabled: true }).expect(409);
    expect(disable.body.error).toMatchObject({ code: 'CONFLICT', reason: 'own_account_disabled' });
    const me = await as(admin).get('/api/auth/me').expect(200);
    expect(me.body.user.isAdmin).toBe(true);
  });

  it('disabling an account signs it out everywhere; re-enabling lets it sign in again', async () => {
    const carol = await signUp(api.url);
    await as(carol).get('/api/auth/me').expect(200);
    const disabled = await as(admin).patch(`/api/admin/users/${carol.userId}`, { disabled: true }).expect(200);
    expect(disabled.body.disabledAt).toEqual(expect.any(String));
    await as(carol).get('/api/auth/me').expect(401);
    await request(api.url).post('/api/auth/login').send({ email: carol.email, password: carol.password }).expect(401);

    await as(admin).patch(`/api/admin/users/${carol.userId}`, { disabled: false }).expect(200);
    // The revoked session stays revoked; a new sign-in works.
    await as(carol).get('/api/auth/me').expect(401);
    const cookie = await logIn(api.url, carol.email, carol.password);
    await as({ cookie }).get('/api/auth/me').expect(200);
    const details = (await auditRows('admin.user.update')).filter((row) => row.targetId === carol.userId).map((r) => r.details);
    expect(details).toEqual([{ disabled: false }, { disabled: true }]);
  });

  it('disabling an account revokes its API tokens and the pending invitations it sent, for good', async () => {
    const dora = await signUp(api.url);
    const token = (await as(dora).post('/api/auth/tokens', { name: 'cli', expiresInDays: 30 }).expect(201)).body.token as string;
    const bearer = () => request(api.url).get('/api/auth/me').set('Authorization', `Bearer ${token}`);
    await bearer().expect(200);
    const email = `invitee-${randomUUID()}@example.test`;
    const sent = await as(dora).post(`/api/workspaces/${dora.workspaceId}/invitations`, { email, role: 'member' }).expect(201);
    const look = () => request(api.url).get(`/api/invitations/${sent.body.token}`);
    expect((await look().expect(200)).body).toMatchObject({ status: 'pending', valid: true });

    await as(admin).patch(`/api/admin/users/${dora.userId}`, { disabled: true }).expect(200);
    await as(admin).patch(`/api/admin/users/${dora.userId}`, { disabled: false }).expect(200);
    // Re-enabling brings neither back.
    await bearer().expect(401);
    expect((await look().expect(200)).body).toMatchObject({ status: 'revoked', valid: false });
    const prisma = api.app.get(PrismaService);
    expect(await prisma.invitation.findUniqueOrThrow({ where: { id: sent.body.id } })).toMatchObject({
      revokedAt: expect.any(Date),
      revokedById: null,
    });
    expect(await prisma.apiToken.count({ where: { userId: dora.userId, revokedAt: null } })).toBe(0);
  });

  it('changes a member role in any workspace, keeping the last owner', async () => {
    const bob = await signUp(api.url);
    const dave = await signUp(api.url);
    await as(bob).post(`/api/workspaces/${bob.workspaceId}/members`, { email: dave.email }).expect(201);

    const path = `/api/admin/workspaces/${bob.workspaceId}/members`;
    const changed = await as(admin).patch(`${path}/${dave.userId}`, { role: 'admin' }).expect(200);
    expect(changed.body).toMatchObject({ userId: dave.userId, role: 'admin' });
    const rows = (await auditRows('admin.member.role_change')).filter((row) => row.targetId === dave.userId);
    expect(rows).toEqual([expect.objectContaining({ actorUserId: admin.userId, details: { from: 'member', to: 'admin' } })]);

    const lastOwner = await as(admin).patch(`${path}/${bob.userId}`, { role: 'member' }).expect(409);
    expect(lastOwner.body.error.code).toBe('CONFLICT');
    await as(admin).patch(`${path}/${dave.userId}`, { role: 'owner' }).expect(200);
    await as(admin).patch(`${path}/${bob.userId}`, { role: 'member' }).expect(200);
    const members = await as(dave).get(`/api/workspaces/${bob.workspaceId}/members`).expect(200);
    expect(Object.fromEntries(members.body.items.map((m: { userId: string; role: string }) => [m.userId, m.role]))).toEqual({
      [bob.userId]: 'member',
      [dave.userId]: 'owner',
    });

    await as(admin).patch(`${path}/${randomUUID()}`, { role: 'admin' }).expect(404);
    await as(admin).patch(`/api/admin/workspaces/${randomUUID()}/members/${dave.userId}`, { role: 'admin' }).expect(404);
    await as(admin).patch(`${path}/${dave.userId}`, { role: 'superuser' }).expect(400);
  });

  it('lists runs newest first with filters and stops a queued run', async () => {
    const bob = await signUp(api.url);
    const older = await queuedRun(bob);
    const { agentId, runId } = await queuedRun(bob);

    const all = await as(admin).get(`/api/admin/runs?workspaceId=${bob.workspaceId}`).expect(200);
    expect(all.body.items.map((r: { id: string }) => r.id)).toEqual([runId, older.runId]);
    const byAgent = await as(admin).get(`/api/admin/runs?agentId=${agentId}&status=queued`).expect(200);
    const bobsWorkspace = (await as(bob).get(`/api/workspaces/${bob.workspaceId}`).expect(200)).body as { name: string };
    const bobsAgent = (await as(bob).get(`/api/agents/${agentId}`).expect(200)).body as { name: string };
    // With the names the dashboard shows beside it.
    expect(byAgent.body.items).toEqual([
      expect.objectContaining({
        id: runId,
        status: 'queued',
        workspaceId: bob.workspaceId,
        agentName: bobsAgent.name,
        workspaceName: bobsWorkspace.name,
      }),
    ]);
    await as(admin).get('/api/admin/runs?status=bogus').expect(400);

    const stopped = await as(admin).post(`/api/admin/runs/${runId}/stop`).expect(200);
    expect(stopped.body).toMatchObject({ id: runId, status: 'cancelled', cancelRequested: true });
    const seen = await as(bob).get(`/api/runs/${runId}`).expect(200);
    expect(seen.body.status).toBe('cancelled');
    expect((await as(admin).get(`/api/admin/runs?agentId=${agentId}&status=queued`).expect(200)).body.items).toEqual([]);
    expect((await auditRows('run.stop')).filter((row) => row.targetId === runId)).toEqual([
      expect.objectContaining({ actorUserId: admin.userId, details: { by: 'instance_admin', from: 'queued' } }),
    ]);

    const again = await as(admin).post(`/api/admin/runs/${runId}/stop`).expect(409);
    expect(again.body.error.code).toBe('CONFLICT');
    await as(admin).post(`/api/admin/runs/${randomUUID()}/stop`).expect(404);
  });

  it('lists every computer with its workspace and screens, and stops one (audited)', async () => {
    const bob = await signUp(api.url);
    const { agentId } = await queuedRun(bob);
    // A computer whose worker is gone (no binding): booting one needs a desktop, which this suite does not test.
    const prisma = api.app.get(PrismaService);
    const computer = await prisma.computer.create({
      data: {
        workspaceId: bob.workspaceId,
        kind: 'team',
        state: 'running',
        homeKey: `home-${randomUUID()}`,
        bootedAt: new Date(),
        memoryBytes: 123_456_789n,
        screens: { create: { slot: 0, display: 1, agentId } },
      },
    });

    const list = await as(admin).get(`/api/admin/computers?workspaceId=${bob.workspaceId}`).expect(200);
    expect(list.body.items).toEqual([
      expect.objectContaining({
        id: computer.id,
        workspaceId: bob.workspaceId,
        kind: 'team',
        state: 'running',
        memoryBytes: 123_456_789,
        bootedAt: expect.any(String),
        agentName: null,
        workspaceName: expect.any(String),
        screens: [expect.objectContaining({ slot: 0, display: 1, agentId, controlHolder: 'agent', executionRunId: null })],
      }),
    ]);
    expect((await as(admin).get('/api/admin/computers').expect(200)).body.items.map((c: { id: string }) => c.id)).toContain(
      computer.id,
    );

    const stopped = await as(admin).post(`/api/admin/computers/${computer.id}/stop`).expect(200);
    expect(stopped.body).toMatchObject({ id: computer.id, state: 'stopped' });
    expect((await auditRows('computer.stop')).filter((row) => row.targetId === computer.id)).toEqual([
      expect.objectContaining({ actorUserId: admin.userId, details: { by: 'instance_admin', from: 'running' } }),
    ]);

    const missing = await as(admin).post(`/api/admin/computers/${randomUUID()}/stop`).expect(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  it('lets agents use local model servers only once an instance admin allows it (audited), never link-local ones', async () => {
    const bob = await signUp(api.url);
    const createAgent = (modelSettings: object) =>
      as(bob).post(`/api/workspaces/${bob.workspaceId}/agents`, { name: `Local ${randomUUID().slice(0, 8)}`, modelSettings });
    const ollama = { baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3' };
    const metadata = { baseUrl: 'http://169.254.169.254/latest' };

    // testApiConfig opens sign-up (LAZYBOY_SIGNUP=open) for every suite.
    expect((await as(admin).get('/api/admin/settings').expect(200)).body).toEqual({
      allowLocalModelServers: false,
      signupPolicy: 'open',
      environmentModelScope: 'first_workspace',
      // No LAZYBOY_SMTP_URL here (invitation-mail.spec has one).
      mailConfigured: false,
      updatedAt: null,
    });
    const refused = await createAgent(ollama).expect(400);
    expect(refused.body.error.message).toContain('an instance admin can allow them');

    // Bob owns his workspace, but not the instance: refused, and nothing changed.
    expect((await as(bob).patch('/api/admin/settings', { allowLocalModelServers: true })).status).toBe(403);
    for (const body of [
      {},
      { allowLocalModelServers: 'yes' },
      { allowLocalModelServers: true, more: 1 },
      { environmentModelScope: 'everyone' },
    ]) {
      expect((await as(admin).patch('/api/admin/settings', body)).status).toBe(400);
    }
    expect((await as(admin).get('/api/admin/settings').expect(200)).body.allowLocalModelServers).toBe(false);

    const allowed = await as(admin).patch('/api/admin/settings', { allowLocalModelServers: true }).expect(200);
    expect(allowed.body).toEqual({
      allowLocalModelServers: true,
      signupPolicy: 'open',
      environmentModelScope: 'first_workspace',
      mailConfigured: false,
      updatedAt: expect.any(String),
    });
    await as(admin).patch('/api/admin/settings', { allowLocalModelServers: true }).expect(200);
    const agent = await createAgent(ollama).expect(201);
    expect(agent.body.modelSettings).toEqual(ollama);
    await createAgent(metadata).expect(400);

    await as(admin).patch('/api/admin/settings', { allowLocalModelServers: false }).expect(200);
    await as(bob)
      .patch(`/api/agents/${agent.body.id}`, { modelSettings: { ...ollama, model: 'other' } })
      .expect(400);

    // The settings are one row, and the database keeps them so.
    const prisma = api.app.get(PrismaService);
    await expect(prisma.instanceSettings.create({ data: { id: 2, allowLocalModelServers: true } })).rejects.toThrow();
    expect(await prisma.instanceSettings.count()).toBe(1);
    // One row per change; repeating a value changed nothing.
    expect((await auditRows('admin.settings.update')).reverse()).toEqual([
      expect.objectContaining({ actorUserId: admin.userId, details: { allowLocalModelServers: true, from: false } }),
      expect.objectContaining({ actorUserId: admin.userId, details: { allowLocalModelServers: false, from: true } }),
    ]);
  });

  it('shows the audit log newest first', async () => {
    const items = (await as(admin).get('/api/admin/audit?limit=20').expect(200)).body.items as {
      id: string;
      createdAt: string;
    }[];
    expect(items.length).toBeGreaterThan(1);
    const ids = items.map((item) => BigInt(item.id));
    expect([...ids].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(ids);
  });
});
