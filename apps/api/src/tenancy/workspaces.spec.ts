import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { PrismaService } from '../persistence/prisma.service.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { signUp, type TestUser } from '../../../../test/support/index.js';
import { TenancyRepository, type MemberRow } from './tenancy.repository.js';

describe('workspaces and members', () => {
  let api: TestApp;
  let prisma: PrismaService;

  beforeAll(async () => {
    api = await startTestApp(testApiConfig());
    prisma = api.app.get(PrismaService);
  });
  afterAll(() => api.close());

  const as = (user: TestUser) => ({
    get: (path: string) => request(api.url).get(path).set('Cookie', user.cookie),
    post: (path: string, body: object) => request(api.url).post(path).set('Cookie', user.cookie).send(body),
    patch: (path: string, body: object) => request(api.url).patch(path).set('Cookie', user.cookie).send(body),
    delete: (path: string) => request(api.url).delete(path).set('Cookie', user.cookie),
  });

  async function workspaceOf(owner: TestUser, name = `Team ${randomUUID().slice(0, 8)}`): Promise<string> {
    return (await as(owner).post('/api/workspaces', { name }).expect(201)).body.id;
  }

  it('creates workspaces owned by their creator, each with a unique slug', async () => {
    const ada = await signUp(api.url);
    const name = `Research Lab ${randomUUID().slice(0, 8)}`;
    const first = await as(ada).post('/api/workspaces', { name }).expect(201);
    expect(first.body).toMatchObject({ name, role: 'owner', memberCount: 1, slug: name.toLowerCase().replaceAll(' ', '-') });
    const second = await as(ada).post('/api/workspaces', { name }).expect(201);
    expect(second.body.slug).toMatch(new RegExp(`^${first.body.slug}-[0-9a-f]{6}$`));
    const chinese = await as(ada).post('/api/workspaces', { name: '懶人小組' }).expect(201);
    expect(chinese.body).toMatchObject({ name: '懶人小組', slug: expect.stringMatching(/^workspace(-[0-9a-f]{6})?$/) });

    const list = await as(ada).get('/api/workspaces').expect(200);
    expect(list.body.items.map((w: { id: string }) => w.id)).toEqual([
      ada.workspaceId,
      first.body.id,
      second.body.id,
      chinese.body.id,
    ]);
    await as(ada).get(`/api/workspaces/${first.body.id}`).expect(200);
    await as(ada).post('/api/workspaces', { name: '  ' }).expect(400);
  });

  it('answers 404 to non-members on every workspace route, like for a missing workspace', async () => {
    const owner = await signUp(api.url);
    const outsider = await signUp(api.url);
    const id = owner.workspaceId;
    for (const workspaceId of [id, randomUUID(), 'not-a-uuid']) {
      const base = `/api/workspaces/${workspaceId}`;
      const answers = await Promise.all([
        as(outsider).get(base),
        as(outsider).patch(base, { name: 'Mine now' }),
        as(outsider).get(`${base}/members`),
        as(outsider).post(`${base}/members`, { email: outsider.email, role: 'owner' }),
        as(outsider).patch(`${base}/members/${owner.userId}`, { role: 'member' }),
        as(outsider).delete(`${base}/members/${owner.userId}`),
      ]);
      for (const res of answers) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    }
    expect((await as(owner).get(`/api/workspaces/${id}/members`).expect(200)).body.items).toHaveLength(1);
  });

  it('lets admins manage members, and keeps the owner role to owners', async () => {
    const owner = await signUp(api.url);
    const bob = await signUp(api.url);
    const carol = await signUp(api.url);
    const workspaceId = await workspaceOf(owner);
    const base = `/api/workspaces/${workspaceId}`;

    const added = await as(owner).post(`${base}/members`, { email: bob.email.toUpperCase(), role: 'member' }).expect(201);
    expect(added.body).toMatchObject({ userId: bob.userId, email: bob.email, role: 'member' });
    await as(owner).post(`${base}/members`, { email: bob.email, role: 'admin' }).expect(409);
    await as(owner)
      .post(`${base}/members`, { email: `nobody-${randomUUID()}@example.test` })
      .expect(404);

    // A member sees the workspace but may not change it.
    expect((await as(bob).get(base).expect(200)).body.role).toBe('member');
    expect((await as(bob).patch(base, { name: 'Renamed' }).expect(403)).body.error.code).toBe('FORBIDDEN');
    await as(bob).post(`${base}/members`, { email: carol.email }).expect(403);

    // Promoted to admin, Bob manages members but cannot touch the owner role.
    expect((await as(owner).patch(`${base}/members/${bob.userId}`, { role: 'admin' }).expect(200)).body.role).toBe('admin');
    expect((await as(bob).patch(base, { name: 'Renamed by Bob' }).expect(200)).body.name).toBe('Renamed by Bob');
    await as(bob).post(`${base}/members`, { email: carol.email, role: 'owner' }).expect(403);
    await as(bob).post(`${base}/members`, { email: carol.email }).expect(201);
    await as(bob).patch(`${base}/members/${carol.userId}`, { role: 'owner' }).expect(403);
    await as(bob).patch(`${base}/members/${owner.userId}`, { role: 'member' }).expect(403);
    await as(bob).delete(`${base}/members/${owner.userId}`).expect(403);
    expect((await as(bob).patch(`${base}/members/${carol.userId}`, { role: 'admin' }).expect(200)).body.role).toBe('admin');
    await as(bob).delete(`${base}/members/${carol.userId}`).expect(204);
    await as(carol).get(base).expect(404);
    await as(bob).patch(`${base}/members/${carol.userId}`, { role: 'member' }).expect(404);

    const members = (await as(owner).get(`${base}/members`).expect(200)).body.items;
    expect(members.map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([
      [owner.userId, 'owner'],
      [bob.userId, 'admin'],
    ]);
  });

  it('never leaves a workspace without an owner', async () => {
    const owner = await signUp(api.url);
    const bob = await signUp(api.url);
    const base = `/api/workspaces/${owner.workspaceId}`;

    const demote = await as(owner).patch(`${base}/members/${owner.userId}`, { role: 'admin' }).expect(409);
    expect(demote.body.error.code).toBe('CONFLICT');
    await as(owner).delete(`${base}/members/${owner.userId}`).expect(409);

    await as(owner).post(`${base}/members`, { email: bob.email, role: 'owner' }).expect(201);
    // With a second owner, the first may step down, and then the second is the last one.
    expect((await as(owner).patch(`${base}/members/${owner.userId}`, { role: 'member' }).expect(200)).body.role).toBe('member');
    await as(bob).patch(`${base}/members/${bob.userId}`, { role: 'admin' }).expect(409);
    await as(bob).delete(`${base}/members/${bob.userId}`).expect(409);
    // Members may leave on their own.
    await as(owner).delete(`${base}/members/${owner.userId}`).expect(204);
    await as(owner).get(base).expect(404);
    expect((await as(bob).get(base).expect(200)).body.memberCount).toBe(1);
  });

  it('keeps two owners from demoting each other at the same time', async () => {
    const ada = await signUp(api.url);
    const bob = await signUp(api.url);
    const base = `/api/workspaces/${ada.workspaceId}`;
    await as(ada).post(`${base}/members`, { email: bob.email, role: 'owner' }).expect(201);
    const [a, b] = await Promise.all([
      as(ada).patch(`${base}/members/${ada.userId}`, { role: 'admin' }),
      as(bob).patch(`${base}/members/${bob.userId}`, { role: 'admin' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect(await prisma.membership.count({ where: { workspaceId: ada.workspaceId, role: 'owner' } })).toBe(1);
  });

  it('keeps two owners from both leaving, or one leaving while demoting the other, at the same time', async () => {
    const ada = await signUp(api.url);
    const bob = await signUp(api.url);
    const base = `/api/workspaces/${ada.workspaceId}`;
    await as(ada).post(`${base}/members`, { email: bob.email, role: 'owner' }).expect(201);
    const [a, b] = await Promise.all([
      as(ada).delete(`${base}/members/${ada.userId}`),
      as(bob).delete(`${base}/members/${bob.userId}`),
    ]);
    expect([a.status, b.status].sort()).toEqual([204, 409]);
    const stayed = a.status === 204 ? bob : ada;
    const left = a.status === 204 ? ada : bob;
    expect(
      await prisma.membership.findMany({ where: { workspaceId: ada.workspaceId }, select: { userId: true, role: true } }),
    ).toEqual([{ userId: stayed.userId, role: 'owner' }]);

    // The one who stayed is the last owner again; with the other back as owner, a leave races a demotion.
    await as(stayed).post(`${base}/members`, { email: left.email, role: 'owner' }).expect(201);
    const [leave, demote] = await Promise.all([
      as(stayed).delete(`${base}/members/${stayed.userId}`),
      as(left).patch(`${base}/members/${left.userId}`, { role: 'member' }),
    ]);
    // Either the leave went first (and the demotion would leave nobody) or the demotion (and the leave would).
    expect([
      [204, 409],
      [409, 200],
    ]).toContainEqual([leave.status, demote.status]);
    expect(await prisma.membership.count({ where: { workspaceId: ada.workspaceId, role: 'owner' } })).toBe(1);
  });

  describe('when the member changes between the permission check and the write', () => {
    afterEach(() => {
      jest.restoreAllMocks();
    });

    /** Lets the next member read return what it found, then makes the owner promote that member meanwhile. */
    function promoteToOwnerRightAfterTheNextRead(): void {
      const tenancy = api.app.get(TenancyRepository);
      const read = tenancy.member.bind(tenancy);
      jest
        .spyOn(tenancy, 'member')
        .mockImplementationOnce(async (workspaceId: string, userId: string): Promise<MemberRow | null> => {
          const seen = await read(workspaceId, userId);
          await prisma.membership.update({ where: { workspaceId_userId: { workspaceId, userId } }, data: { role: 'owner' } });
          return seen;
        });
    }

    async function teamWithAdmins(): Promise<{ base: string; admin: TestUser; target: TestUser; workspaceId: string }> {
      const owner = await signUp(api.url);
      const admin = await signUp(api.url);
      const target = await signUp(api.url);
      const base = `/api/workspaces/${owner.workspaceId}`;
      await as(owner).post(`${base}/members`, { email: admin.email, role: 'admin' }).expect(201);
      await as(owner).post(`${base}/members`, { email: target.email, role: 'admin' }).expect(201);
      return { base, admin, target, workspaceId: owner.workspaceId };
    }

    it('does not let an admin demote someone who became an owner meanwhile', async () => {
      const { base, admin, target, workspaceId } = await teamWithAdmins();
      promoteToOwnerRightAfterTheNextRead();
      const res = await as(admin).patch(`${base}/members/${target.userId}`, { role: 'member' }).expect(409);
      expect(res.body.error.code).toBe('CONFLICT');
      const row = await prisma.membership.findUniqueOrThrow({
        where: { workspaceId_userId: { workspaceId, userId: target.userId } },
      });
      expect(row.role).toBe('owner');
    });

    it('does not let an admin remove someone who became an owner meanwhile', async () => {
      const { base, admin, target, workspaceId } = await teamWithAdmins();
      promoteToOwnerRightAfterTheNextRead();
      expect((await as(admin).delete(`${base}/members/${target.userId}`).expect(409)).body.error.code).toBe('CONFLICT');
      const row = await prisma.membership.findUnique({ where: { workspaceId_userId: { workspaceId, userId: target.userId } } });
      expect(row?.role).toBe('owner');
    });
  });

  it('audits member changes', async () => {
    const owner = await signUp(api.url);
    const bob = await signUp(api.url);
    const base = `/api/workspaces/${owner.workspaceId}`;
    await as(owner).post(`${base}/members`, { email: bob.email }).expect(201);
    await as(owner).patch(`${base}/members/${bob.userId}`, { role: 'admin' }).expect(200);
    await as(owner).delete(`${base}/members/${bob.userId}`).expect(204);

    const rows = await prisma.auditLog.findMany({
      where: { workspaceId: owner.workspaceId, action: { startsWith: 'member.' } },
      orderBy: { id: 'asc' },
    });
    expect(rows.map((row) => [row.action, row.actorUserId, row.targetType, row.targetId, row.metadata])).toEqual([
      ['member.add', owner.userId, 'user', bob.userId, { role: 'member' }],
      ['member.role_change', owner.userId, 'user', bob.userId, { from: 'member', to: 'admin' }],
      ['member.remove', owner.userId, 'user', bob.userId, { role: 'admin' }],
    ]);
  });
});
