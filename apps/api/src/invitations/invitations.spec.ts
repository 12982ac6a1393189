import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import pg from 'pg';
import request from 'supertest';
import { INVITATION_PENDING_LIMIT } from '@lazyboy/contracts';
import { sha256Hex } from '../auth/secrets.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { freshIp } from '../testing/test-addresses.js';
import { captureOutput, logEverything } from '../testing/test-logs.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { createApiToken, bearer, logIn, logInFirstAdmin, signUp, type TestUser } from '../../../../test/support/index.js';
import { InvitationsRepository } from './invitations.repository.js';

// Sign-up policies and workspace invitations, on a database of this suite's own (the instance settings it
// changes are the whole instance's) whose API starts with the product's default policy, `invite`.

// Its own address per suite: the per-account sign-in limit lives in the one Redis every suite shares.
const ADMIN_EMAIL = `root-${randomUUID().slice(0, 8)}@example.test`;
const APP_TOKEN = `app-token-${randomUUID()}`;
const DAY_MS = 24 * 60 * 60 * 1_000;

interface Caller {
  cookie: string;
}

const newEmail = (name = 'person') => `${name}-${randomUUID()}@example.test`;
/** A well-formed token no invitation has. */
const unknownToken = () => randomBytes(32).toString('base64url');

describe('sign-up policy and invitations', () => {
  let database: IsolatedDatabase;
  let api: TestApp;
  let prisma: PrismaService;
  /** The first admin (LAZYBOY_APP_TOKEN): an instance admin owning the workspace `home`. */
  let admin: TestUser;

  beforeAll(async () => {
    database = await createIsolatedDatabase();
    api = await startTestApp(
      testApiConfig({
        DATABASE_URL: database.url,
        LAZYBOY_APP_TOKEN: APP_TOKEN,
        LAZYBOY_ADMIN_EMAIL: ADMIN_EMAIL,
        // The product's default (api-config.spec checks it is the default); testApiConfig opens sign-up.
        LAZYBOY_SIGNUP: 'invite',
      }),
    );
    prisma = api.app.get(PrismaService);
    const cookie = await logInFirstAdmin(api.url, ADMIN_EMAIL, APP_TOKEN);
    const me = await request(api.url).get('/api/auth/me').set('Cookie', cookie).expect(200);
    admin = {
      email: ADMIN_EMAIL,
      password: APP_TOKEN,
      displayName: me.body.user.displayName,
      cookie,
      userId: me.body.user.id,
      workspaceId: me.body.workspaces[0].id,
    };
  });
  afterAll(async () => {
    await api?.close();
    await database?.drop();
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const as = (caller: Caller) => ({
    get: (path: string) => request(api.url).get(path).set('Cookie', caller.cookie),
    post: (path: string, body: object = {}) => request(api.url).post(path).set('Cookie', caller.cookie).send(body),
    patch: (path: string, body: object) => request(api.url).patch(path).set('Cookie', caller.cookie).send(body),
    delete: (path: string) => request(api.url).delete(path).set('Cookie', caller.cookie),
  });
  const signupBody = (email: string, invitationToken?: string) => ({
    email,
    password: 'a long enough password',
    displayName: 'Newcomer',
    ...(invitationToken ? { invitationToken } : {}),
  });
  const signup = (email: string, invitationToken?: string) =>
    request(api.url).post('/api/auth/signup').send(signupBody(email, invitationToken));

  async function invite(
    by: Caller,
    workspaceId: string,
    email: string,
    role = 'member',
  ): Promise<{ id: string; token: string; body: Record<string, unknown> }> {
    const res = await as(by).post(`/api/workspaces/${workspaceId}/invitations`, { email, role }).expect(201);
    return { id: res.body.id, token: res.body.token, body: res.body };
  }

  /** A new person in the admin's workspace `home` with `role`, signed up through an invitation. */
  async function memberOfHome(role = 'member'): Promise<TestUser> {
    const email = newEmail(role);
    const { token } = await invite(admin, admin.workspaceId, email, role);
    return signUp(api.url, { email, invitationToken: token });
  }

  /** A workspace owned by a new person (made by the admin, who hands it over), with that person signed in. */
  async function ownerOfNewWorkspace(): Promise<{ owner: TestUser; workspaceId: string }> {
    const workspace = await as(admin)
      .post('/api/workspaces', { name: `Team ${randomUUID().slice(0, 8)}` })
      .expect(201);
    const email = newEmail('owner');
    const { token } = await invite(admin, workspace.body.id, email, 'owner');
    const owner = await signUp(api.url, { email, invitationToken: token });
    return { owner: { ...owner, workspaceId: workspace.body.id }, workspaceId: workspace.body.id };
  }

  const invitationRow = (id: string) => prisma.invitation.findUniqueOrThrow({ where: { id } });
  const userCount = (email: string) => prisma.user.count({ where: { email } });

  describe('the sign-up policy', () => {
    it('refuses a sign-up without an invitation under `invite`, saying why, and makes nothing', async () => {
      expect((await request(api.url).get('/api/auth/signup').expect(200)).body).toEqual({ signup: 'invite' });
      const email = newEmail();
      const res = await signup(email).expect(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'signup_invitation_required' });
      expect(await userCount(email)).toBe(0);
    });

    it('lets an instance admin close and open sign-up (audited); `closed` refuses invitations too but not their acceptance', async () => {
      const member = await memberOfHome();
      const other = await as(admin)
        .post('/api/workspaces', { name: `Closed ${randomUUID().slice(0, 8)}` })
        .expect(201);
      const newcomer = newEmail('newcomer');
      const forNewcomer = await invite(admin, admin.workspaceId, newcomer);
      const forMember = await invite(admin, other.body.id, member.email);

      // Only an instance admin may change it; a bad value changes nothing.
      expect((await as(member).patch('/api/admin/settings', { signupPolicy: 'open' })).status).toBe(403);
      for (const body of [{ signupPolicy: 'everyone' }, { signupPolicy: 'open', more: 1 }, {}]) {
        expect((await as(admin).patch('/api/admin/settings', body)).status).toBe(400);
      }
      const closed = await as(admin).patch('/api/admin/settings', { signupPolicy: 'closed' }).expect(200);
      expect(closed.body).toMatchObject({ signupPolicy: 'closed', allowLocalModelServers: false, updatedAt: expect.any(String) });
      expect((await request(api.url).get('/api/auth/signup').expect(200)).body).toEqual({ signup: 'closed' });

      const refused = await signup(newEmail()).expect(403);
      expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'signup_closed' });
      const withInvitation = await signup(newcomer, forNewcomer.token).expect(403);
      expect(withInvitation.body.error.reason).toBe('signup_closed');
      expect(await userCount(newcomer)).toBe(0);
      expect((await invitationRow(forNewcomer.id)).acceptedAt).toBeNull();
      const preview = await request(api.url).get(`/api/invitations/${forNewcomer.token}`).expect(200);
      expect(preview.body).toMatchObject({ valid: true, signupAllowed: false });
      // An existing account still joins through its invitation.
      const joined = await as(member).post(`/api/invitations/${forMember.token}/accept`).expect(200);
      expect(joined.body).toMatchObject({ id: other.body.id, role: 'member' });

      // `open`: anyone signs up and gets a workspace of their own; an invitation still leads into its workspace.
      await as(admin).patch('/api/admin/settings', { signupPolicy: 'open' }).expect(200);
      const stranger = await signUp(api.url);
      expect((await as(stranger).get(`/api/workspaces/${stranger.workspaceId}`).expect(200)).body.role).toBe('owner');
      const invited = await signUp(api.url, { email: newcomer, invitationToken: forNewcomer.token });
      const me = await as(invited).get('/api/auth/me').expect(200);
      expect(me.body.workspaces).toEqual([expect.objectContaining({ id: admin.workspaceId, role: 'member' })]);

      await as(admin).patch('/api/admin/settings', { signupPolicy: 'invite' }).expect(200);
      await signup(newEmail()).expect(403);
      const changes = await prisma.auditLog.findMany({ where: { action: 'admin.settings.update' }, orderBy: { id: 'asc' } });
      expect(changes.map((row) => [row.actorUserId, row.metadata])).toEqual([
        [admin.userId, { signupPolicy: 'closed', fromSignupPolicy: 'invite' }],
        [admin.userId, { signupPolicy: 'open', fromSignupPolicy: 'closed' }],
        [admin.userId, { signupPolicy: 'invite', fromSignupPolicy: 'open' }],
      ]);
    });

    it('lets only instance admins create workspaces under `invite` and `closed`, everyone under `open`', async () => {
      const member = await memberOfHome('member');
      const create = (caller: Caller) => as(caller).post('/api/workspaces', { name: `Own ${randomUUID().slice(0, 8)}` });
      const owned = () => prisma.membership.count({ where: { userId: member.userId, role: 'owner' } });
      try {
        for (const signupPolicy of ['invite', 'closed'] as const) {
          await as(admin).patch('/api/admin/settings', { signupPolicy }).expect(200);
          const refused = await create(member).expect(403);
          expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'workspace_creation_restricted' });
          expect(await owned()).toBe(0);
          await create(admin).expect(201);
        }
        await as(admin).patch('/api/admin/settings', { signupPolicy: 'open' }).expect(200);
        await create(member).expect(201);
        expect(await owned()).toBe(1);
      } finally {
        await as(admin).patch('/api/admin/settings', { signupPolicy: 'invite' }).expect(200);
      }
    });
  });

  describe('invitations', () => {
    it('makes a single-use link that signs its person up into the workspace with its role, and no workspace of their own', async () => {
      const email = newEmail('carol');
      const before = Date.now();
      const created = await as(admin)
        .post(`/api/workspaces/${admin.workspaceId}/invitations`, { email: email.toUpperCase(), role: 'admin', expiresInDays: 3 })
        .expect(201);
      const { token } = created.body;
      expect(created.body).toEqual({
        id: expect.any(String),
        workspaceId: admin.workspaceId,
        email,
        role: 'admin',
        status: 'pending',
        invitedBy: { userId: admin.userId, displayName: admin.displayName },
        expiresAt: expect.any(String),
        createdAt: expect.any(String),
        acceptedAt: null,
        revokedAt: null,
        token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        path: `/invite/${token}`,
        // This API has no mail transport: the link is copied by hand.
        delivery: 'not_configured',
        deliveryFailure: null,
      });
      const expiresAt = Date.parse(created.body.expiresAt);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 3 * DAY_MS);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3 * DAY_MS);
      // The database keeps the token's digest only.
      expect((await invitationRow(created.body.id)).tokenHash).toBe(sha256Hex(token));

      // Anyone holding the link (no sign-in) learns this much, and no more.
      const preview = await request(api.url).get(`/api/invitations/${token}`).expect(200);
      expect(preview.body).toEqual({
        workspaceName: 'Home',
        role: 'admin',
        inviterDisplayName: admin.displayName,
        status: 'pending',
        valid: true,
        expiresAt: created.body.expiresAt,
        signupAllowed: true,
      });

      const res = await signup(email.toUpperCase(), token).expect(201);
      expect(res.body.workspaces).toEqual([{ id: admin.workspaceId, name: 'Home', slug: 'home', role: 'admin' }]);
      const carolId: string = res.body.user.id;
      expect(await prisma.membership.count({ where: { userId: carolId } })).toBe(1);
      expect(await invitationRow(created.body.id)).toMatchObject({ acceptedById: carolId, acceptedAt: expect.any(Date) });

      // Used: refused to anyone else, and it says so.
      const again = await signup(newEmail(), token).expect(409);
      expect(again.body.error).toMatchObject({ code: 'CONFLICT', reason: 'invitation_used' });
      expect((await request(api.url).get(`/api/invitations/${token}`).expect(200)).body).toMatchObject({
        status: 'accepted',
        valid: false,
      });
      const list = await as(admin).get(`/api/workspaces/${admin.workspaceId}/invitations`).expect(200);
      expect(list.body.items.find((i: { id: string }) => i.id === created.body.id)).toMatchObject({
        status: 'accepted',
        acceptedAt: expect.any(String),
      });

      const audit = await prisma.auditLog.findMany({
        where: { workspaceId: admin.workspaceId, targetId: { in: [created.body.id, carolId] } },
        orderBy: { id: 'asc' },
      });
      expect(audit.map((row) => [row.action, row.actorUserId, row.targetType, row.metadata])).toEqual([
        ['invitation.create', admin.userId, 'invitation', { email, role: 'admin', expiresAt: created.body.expiresAt }],
        ['invitation.accept', carolId, 'invitation', { role: 'admin', newAccount: true }],
        ['auth.signup', carolId, 'user', { workspaceId: admin.workspaceId, invitationId: created.body.id }],
      ]);
    });

    it('refuses expired and revoked invitations, unknown tokens and an email the invitation was not sent to', async () => {
      const member = await memberOfHome();
      const other = await as(admin)
        .post('/api/workspaces', { name: `Refusals ${randomUUID().slice(0, 8)}` })
        .expect(201);

      const dave = newEmail('dave');
      const forDave = await invite(admin, admin.workspaceId, dave);
      const erin = newEmail('erin');
      const mismatch = await signup(erin, forDave.token).expect(403);
      expect(mismatch.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'invitation_email_mismatch' });
      expect(await userCount(erin)).toBe(0);
      // Sent to Dave, accepted by the signed-in member: refused alike.
      const wrongAccount = await as(member).post(`/api/invitations/${forDave.token}/accept`).expect(403);
      expect(wrongAccount.body.error.reason).toBe('invitation_email_mismatch');
      expect((await invitationRow(forDave.id)).acceptedAt).toBeNull();

      const expired = await invite(admin, other.body.id, member.email);
      await prisma.invitation.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
      const late = await as(member).post(`/api/invitations/${expired.token}/accept`).expect(409);
      expect(late.body.error).toMatchObject({ code: 'CONFLICT', reason: 'invitation_expired' });
      const fresh = newEmail('fresh');
      const expiredSignup = await invite(admin, admin.workspaceId, fresh);
      await prisma.invitation.update({ where: { id: expiredSignup.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
      expect((await signup(fresh, expiredSignup.token).expect(409)).body.error.reason).toBe('invitation_expired');
      expect(await userCount(fresh)).toBe(0);
      expect((await request(api.url).get(`/api/invitations/${expired.token}`).expect(200)).body).toMatchObject({
        status: 'expired',
        valid: false,
      });

      const revoked = await invite(admin, other.body.id, member.email, 'admin');
      await as(admin).delete(`/api/workspaces/${other.body.id}/invitations/${revoked.id}`).expect(204);
      // Revoking again changes nothing (and is not audited twice).
      await as(admin).delete(`/api/workspaces/${other.body.id}/invitations/${revoked.id}`).expect(204);
      const gone = await as(member).post(`/api/invitations/${revoked.token}/accept`).expect(409);
      expect(gone.body.error).toMatchObject({ code: 'CONFLICT', reason: 'invitation_revoked' });
      expect(await prisma.membership.count({ where: { workspaceId: other.body.id, userId: member.userId } })).toBe(0);
      expect(await prisma.auditLog.count({ where: { action: 'invitation.revoke', targetId: revoked.id } })).toBe(1);
      const listed = await as(admin).get(`/api/workspaces/${other.body.id}/invitations`).expect(200);
      expect(listed.body.items.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
        [revoked.id, 'revoked'],
        [expired.id, 'expired'],
      ]);

      // Unknown and malformed tokens name nothing: 404 (a malformed one in a sign-up body is a 400).
      for (const token of [unknownToken(), 'not-a-token', `${unknownToken()}x`]) {
        expect((await request(api.url).get(`/api/invitations/${token}`)).status).toBe(404);
        expect((await as(member).post(`/api/invitations/${token}/accept`)).status).toBe(404);
      }
      expect((await signup(newEmail(), unknownToken()).expect(404)).body.error.code).toBe('NOT_FOUND');
      expect((await signup(newEmail(), 'not-a-token').expect(400)).body.error.code).toBe('VALIDATION_FAILED');
    });

    it('lets a signed-in person accept an invitation to their email, once, but not through a workspace-limited token', async () => {
      const member = await memberOfHome();
      const { owner, workspaceId } = await ownerOfNewWorkspace();
      const first = await invite(owner, workspaceId, member.email);
      const limited = await createApiToken(api.url, member.cookie, admin.workspaceId);
      const viaToken = await request(api.url).post(`/api/invitations/${first.token}/accept`).set(bearer(limited)).expect(403);
      expect(viaToken.body.error.code).toBe('FORBIDDEN');

      const accepted = await as(member).post(`/api/invitations/${first.token}/accept`).expect(200);
      expect(accepted.body).toEqual({ id: workspaceId, name: expect.any(String), slug: expect.any(String), role: 'member' });
      expect((await as(member).post(`/api/invitations/${first.token}/accept`).expect(409)).body.error.reason).toBe(
        'invitation_used',
      );
      // A member already: no invitation for them, and one made before they joined stays unusable.
      const dupe = await as(owner).post(`/api/workspaces/${workspaceId}/invitations`, { email: member.email }).expect(409);
      expect(dupe.body.error.reason).toBe('already_member');
      const other = await ownerOfNewWorkspace();
      const early = await invite(other.owner, other.workspaceId, member.email);
      await as(other.owner).post(`/api/workspaces/${other.workspaceId}/members`, { email: member.email }).expect(201);
      expect((await as(member).post(`/api/invitations/${early.token}/accept`).expect(409)).body.error.reason).toBe(
        'already_member',
      );
      expect((await invitationRow(early.id)).acceptedAt).toBeNull();
      // An existing account cannot sign up again through its invitation: it signs in and accepts.
      const elsewhere = await as(admin)
        .post('/api/workspaces', { name: `Elsewhere ${randomUUID().slice(0, 8)}` })
        .expect(201);
      const again = await invite(admin, elsewhere.body.id, member.email);
      expect((await signup(member.email, again.token).expect(409)).body.error.reason).toBe('email_taken');
    });

    it('keeps invitations to owners and admins: a member may not invite, an admin may not invite or revoke an owner', async () => {
      const member = await memberOfHome('member');
      const workspaceAdmin = await memberOfHome('admin');
      const base = `/api/workspaces/${admin.workspaceId}/invitations`;
      const before = await prisma.invitation.count();

      expect((await as(member).post(base, { email: newEmail() }).expect(403)).body.error.code).toBe('FORBIDDEN');
      await as(member).get(base).expect(403);
      expect((await as(workspaceAdmin).post(base, { email: newEmail(), role: 'owner' }).expect(403)).body.error.code).toBe(
        'FORBIDDEN',
      );
      expect(await prisma.invitation.count()).toBe(before);

      const byAdmin = await invite(workspaceAdmin, admin.workspaceId, newEmail(), 'admin');
      const forOwner = await invite(admin, admin.workspaceId, newEmail(), 'owner');
      await as(member).delete(`${base}/${byAdmin.id}`).expect(403);
      await as(workspaceAdmin).delete(`${base}/${forOwner.id}`).expect(403);
      expect((await invitationRow(forOwner.id)).revokedAt).toBeNull();
      await as(workspaceAdmin).delete(`${base}/${byAdmin.id}`).expect(204);
      await as(admin).delete(`${base}/${forOwner.id}`).expect(204);
      expect((await as(workspaceAdmin).get(base).expect(200)).body.items.length).toBeGreaterThan(0);
    });

    it("refuses an admin's invitation that would replace (revoke) an owner's invitation for an owner, and changes nothing", async () => {
      const { owner, workspaceId } = await ownerOfNewWorkspace();
      const email = newEmail();
      const adminEmail = newEmail('admin');
      const { token } = await invite(owner, workspaceId, adminEmail, 'admin');
      const workspaceAdmin = await signUp(api.url, { email: adminEmail, invitationToken: token });
      const forOwner = await invite(owner, workspaceId, email, 'owner');
      const before = await prisma.invitation.count({ where: { workspaceId } });
      const refused = await as(workspaceAdmin)
        .post(`/api/workspaces/${workspaceId}/invitations`, { email, role: 'member' })
        .expect(403);
      expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'invitation_role_forbidden' });
      expect(await invitationRow(forOwner.id)).toMatchObject({ revokedAt: null, acceptedAt: null });
      expect(await prisma.invitation.count({ where: { workspaceId } })).toBe(before);
      // The owner may still replace it.
      await invite(owner, workspaceId, email, 'member');
      expect((await invitationRow(forOwner.id)).revokedAt).toEqual(expect.any(Date));
    });

    it("answers 404 for another workspace's invitation ids and changes nothing", async () => {
      const alice = await ownerOfNewWorkspace();
      const bob = await ownerOfNewWorkspace();
      const hers = await invite(alice.owner, alice.workspaceId, newEmail());
      for (const path of [
        `/api/workspaces/${bob.workspaceId}/invitations/${hers.id}`,
        `/api/workspaces/${alice.workspaceId}/invitations/${hers.id}`,
      ]) {
        const res = await as(bob.owner).delete(path).expect(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
      await as(bob.owner).get(`/api/workspaces/${alice.workspaceId}/invitations`).expect(404);
      const bobs = await as(bob.owner).get(`/api/workspaces/${bob.workspaceId}/invitations`).expect(200);
      expect(bobs.body.items.map((i: { id: string }) => i.id)).not.toContain(hers.id);
      expect(await invitationRow(hers.id)).toMatchObject({ revokedAt: null, acceptedAt: null });
    });

    it('replaces a pending invitation for the same email, and keeps a workspace within its pending limit', async () => {
      const { owner, workspaceId } = await ownerOfNewWorkspace();
      const email = newEmail();
      const first = await invite(owner, workspaceId, email);
      const second = await invite(owner, workspaceId, email, 'admin');
      expect(await invitationRow(first.id)).toMatchObject({ revokedAt: expect.any(Date), revokedById: owner.userId });
      expect((await signup(email, first.token).expect(409)).body.error.reason).toBe('invitation_revoked');
      const created = await prisma.auditLog.findFirstOrThrow({ where: { action: 'invitation.create', targetId: second.id } });
      expect(created.metadata).toMatchObject({ replaced: [first.id] });

      const expiresAt = new Date(Date.now() + DAY_MS);
      await prisma.invitation.createMany({
        data: Array.from({ length: INVITATION_PENDING_LIMIT - 2 }, () => ({
          workspaceId,
          email: newEmail('bulk'),
          role: 'member' as const,
          tokenHash: sha256Hex(unknownToken()),
          invitedById: owner.userId,
          expiresAt,
        })),
      });
      await invite(owner, workspaceId, newEmail('last'));
      const full = await as(owner).post(`/api/workspaces/${workspaceId}/invitations`, { email: newEmail() }).expect(409);
      expect(full.body.error.reason).toBe('too_many_invitations');
      // Replacing one is still possible: it frees its own place.
      await invite(owner, workspaceId, email);
      const list = await as(owner).get(`/api/workspaces/${workspaceId}/invitations`).expect(200);
      expect(list.body.items.filter((i: { status: string }) => i.status === 'pending')).toHaveLength(INVITATION_PENDING_LIMIT);
    });

    it('refuses malformed invitations and changes nothing', async () => {
      const base = `/api/workspaces/${admin.workspaceId}/invitations`;
      const before = await prisma.invitation.count();
      for (const body of [
        { email: 'not an email' },
        { email: newEmail(), role: 'superuser' },
        { email: newEmail(), expiresInDays: 0 },
        { email: newEmail(), expiresInDays: 31 },
        { email: newEmail(), expiresInDays: 1.5 },
        { email: newEmail(), token: 'mine' },
        { email: `${'x'.repeat(300)}@example.test` },
      ]) {
        expect((await as(admin).post(base, body)).status).toBe(400);
      }
      expect(await prisma.invitation.count()).toBe(before);
    });

    it("revokes a member's pending invitations with the role that could send them", async () => {
      const { owner, workspaceId } = await ownerOfNewWorkspace();
      const adminEmail = newEmail('admin');
      const adminToken = (await invite(owner, workspaceId, adminEmail, 'admin')).token;
      const teamAdmin = await signUp(api.url, { email: adminEmail, invitationToken: adminToken });
      const coOwnerEmail = newEmail('co-owner');
      const coOwner = await signUp(api.url, {
        email: coOwnerEmail,
        invitationToken: (await invite(owner, workspaceId, coOwnerEmail, 'owner')).token,
      });
      const byAdmin = await invite(teamAdmin, workspaceId, newEmail(), 'member');
      const ownerLevel = await invite(coOwner, workspaceId, newEmail(), 'owner');
      const adminLevel = await invite(coOwner, workspaceId, newEmail(), 'admin');
      const members = `/api/workspaces/${workspaceId}/members`;

      // An owner stepping down to admin keeps the admin-level invitations only.
      await as(owner).patch(`${members}/${coOwner.userId}`, { role: 'admin' }).expect(200);
      expect((await invitationRow(ownerLevel.id)).revokedAt).not.toBeNull();
      expect((await invitationRow(adminLevel.id)).revokedAt).toBeNull();
      // An admin removed: nothing they sent stays usable.
      await as(owner).delete(`${members}/${teamAdmin.userId}`).expect(204);
      expect(await invitationRow(byAdmin.id)).toMatchObject({ revokedAt: expect.any(Date), revokedById: null });
      expect((await signup(newEmail(), byAdmin.token)).status).toBe(409);
      // Leaving counts too.
      await as(coOwner).delete(`${members}/${coOwner.userId}`).expect(204);
      expect((await invitationRow(adminLevel.id)).revokedAt).not.toBeNull();

      const audit = await prisma.auditLog.findMany({
        where: { workspaceId, action: { in: ['member.role_change', 'member.remove', 'member.leave'] } },
        orderBy: { id: 'asc' },
      });
      expect(audit.map((row) => [row.action, row.metadata])).toEqual([
        ['member.role_change', { from: 'owner', to: 'admin', revokedInvitations: 1 }],
        ['member.remove', { role: 'admin', revokedInvitations: 1 }],
        ['member.leave', { role: 'admin', revokedInvitations: 1 }],
      ]);
    });

    it('never shows a token again: not in a list, the audit log, any table or any log line', async () => {
      const output = captureOutput();
      logEverything(api.app);
      // The capture really sees the API's log lines (Nest's testing logger would drop this one).
      new Logger('InvitationsSpec').log('log capture probe');
      expect(output.text()).toContain('log capture probe');
      try {
        const member = await memberOfHome();
        const other = await as(admin).post('/api/workspaces', { name: 'Tokens' }).expect(201);
        const email = newEmail('tokens');
        const tokens = [
          (await invite(admin, admin.workspaceId, email)).token,
          (await invite(admin, other.body.id, member.email)).token,
          (await invite(admin, other.body.id, newEmail())).token,
        ];
        const [forSignup, forAccept, forRevoke] = tokens as [string, string, string];
        await request(api.url).get(`/api/invitations/${forSignup}`).expect(200);
        await signup(email, forSignup).expect(201);
        await as(member).post(`/api/invitations/${forAccept}/accept`).expect(200);
        await as(member).post(`/api/invitations/${forAccept}/accept`).expect(409);
        const list = await as(admin).get(`/api/workspaces/${other.body.id}/invitations`).expect(200);
        const third = list.body.items.find((i: { status: string }) => i.status === 'pending');
        await as(admin).delete(`/api/workspaces/${other.body.id}/invitations/${third.id}`).expect(204);
        await signup(newEmail(), forRevoke).expect(409);

        const answers = [
          JSON.stringify((await as(admin).get(`/api/workspaces/${admin.workspaceId}/invitations`).expect(200)).body),
          JSON.stringify((await as(admin).get(`/api/workspaces/${other.body.id}/invitations`).expect(200)).body),
          JSON.stringify((await as(admin).get('/api/admin/audit?limit=500').expect(200)).body),
        ];
        const tables = await everyRowAsText(database.url);
        for (const token of tokens) {
          for (const text of [...answers, tables, output.text()]) expect(text).not.toContain(token);
        }
      } finally {
        jest.restoreAllMocks();
        api.app.useLogger(['error', 'warn']);
      }
    });

    it('counts look-ups of invitation links per address, apart from sign-ups', async () => {
      const limited = await startTestApp(
        testApiConfig({
          DATABASE_URL: database.url,
          LAZYBOY_SIGNUP: 'invite',
          LAZYBOY_SIGNUPS_PER_HOUR: '1',
          LAZYBOY_INVITATION_LOOKUPS_PER_HOUR: '3',
          LAZYBOY_TRUSTED_PROXIES: '127.0.0.1',
        }),
      );
      try {
        const email = newEmail();
        const { token } = await invite(admin, admin.workspaceId, email);
        const ip = freshIp();
        const look = () => request(limited.url).get(`/api/invitations/${token}`).set('X-Forwarded-For', ip);
        // Their own allowance, larger than the sign-ups' (one here).
        for (let i = 0; i < 3; i++) await look().expect(200);
        const refused = await look().expect(429);
        expect(refused.body.error.code).toBe('RATE_LIMITED');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        // Unknown tokens count alike: nobody tries tokens at speed.
        expect((await request(limited.url).get(`/api/invitations/${unknownToken()}`).set('X-Forwarded-For', ip)).status).toBe(
          429,
        );
        await request(limited.url).post('/api/auth/signup').set('X-Forwarded-For', ip).send(signupBody(email, token)).expect(201);
      } finally {
        await limited.close();
      }
    });
  });

  describe('two accepts of one invitation at once', () => {
    it('lets exactly one of several concurrent accepts by the same person win', async () => {
      const member = await memberOfHome();
      const { owner, workspaceId } = await ownerOfNewWorkspace();
      const { id, token } = await invite(owner, workspaceId, member.email, 'admin');
      const second = await logIn(api.url, member.email, member.password);
      const answers = await Promise.all(
        [member.cookie, second, member.cookie, second, member.cookie].map((cookie) =>
          request(api.url).post(`/api/invitations/${token}/accept`).set('Cookie', cookie),
        ),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409]);
      for (const res of answers.filter((r) => r.status === 409)) expect(res.body.error.reason).toBe('invitation_used');
      expect(await prisma.membership.findMany({ where: { workspaceId, userId: member.userId } })).toEqual([
        expect.objectContaining({ role: 'admin' }),
      ]);
      expect(await prisma.auditLog.count({ where: { action: 'invitation.accept', targetId: id } })).toBe(1);
    });

    it('lets exactly one of several concurrent sign-ups through one link make an account', async () => {
      const email = newEmail('racer');
      const { id, token } = await invite(admin, admin.workspaceId, email);
      const answers = await Promise.all(Array.from({ length: 5 }, () => signup(email, token)));
      expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409]);
      for (const res of answers.filter((r) => r.status === 409))
        expect(['invitation_used', 'email_taken']).toContain(res.body.error.reason);
      const users = await prisma.user.findMany({ where: { email } });
      expect(users).toHaveLength(1);
      expect(await prisma.membership.count({ where: { userId: users[0]!.id } })).toBe(1);
      expect(await invitationRow(id)).toMatchObject({ acceptedById: users[0]!.id });
    });

    it('decides by the claim, not by the check before it: an accept between the two wins', async () => {
      const email = newEmail('late');
      const { id, token } = await invite(admin, admin.workspaceId, email);
      const repo = api.app.get(InvitationsRepository);
      const check = repo.check.bind(repo);
      // The sign-up's check reads the invitation pending; then someone claims it before the sign-up does.
      jest.spyOn(repo, 'check').mockImplementationOnce(async (tokenHash: string, forEmail: string) => {
        const seen = await check(tokenHash, forEmail);
        await prisma.invitation.update({ where: { id }, data: { acceptedAt: new Date() } });
        return seen;
      });
      const res = await signup(email, token).expect(409);
      expect(res.body.error.reason).toBe('invitation_used');
      expect(await userCount(email)).toBe(0);
      expect(await prisma.membership.count({ where: { workspaceId: admin.workspaceId, user: { email } } })).toBe(0);
    });
  });
});

/** Every row of every public table as text, to search for what must never be stored. */
async function everyRowAsText(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const parts: string[] = [];
    for (const { table_name: table } of tables) {
      const { rows } = await client.query<{ r: string }>(`SELECT t::text AS r FROM ${pg.escapeIdentifier(table)} t`);
      parts.push(...rows.map((row) => row.r));
    }
    return parts.join('\n');
  } finally {
    await client.end();
  }
}
