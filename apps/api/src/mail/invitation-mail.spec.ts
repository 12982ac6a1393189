import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { InstanceSettingsService } from '../instance/instance-settings.service.js';
import { INVITATION_MAILS_PER_RECIPIENT } from '../invitations/invitation-mail-limiter.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { captureOutput, logEverything } from '../testing/test-logs.js';
import { startTestSmtpServer, type TestSmtpServer } from '../testing/test-smtp-server.js';
import { signUp, type TestUser } from '../../../../test/support/index.js';

// Invitation links by mail, end to end: a real SMTP server started here, the API configured with
// LAZYBOY_SMTP_URL pointing at it, the mail received and its link used to sign up.

const SMTP_USER = 'lazyboy-mailer';
// Characters that need percent-encoding in the URL, so every form of it is searched for.
const SMTP_PASSWORD = `smtp-secret/${randomUUID()}@:%`;
const PUBLIC_URL = 'https://lazyboy.example.test';
const FROM = 'lazyboy@example.test';
const LINK = new RegExp(`${PUBLIC_URL.replace(/[.]/g, '\\.')}/invite/([A-Za-z0-9_-]{43})`);

const newEmail = (name: string) => `${name}-${randomUUID()}@example.test`;
const smtpUrl = (port: number) => `smtp://${SMTP_USER}:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:${port}`;

const asText = (value: unknown) => JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

describe('invitation links by mail', () => {
  let smtp: TestSmtpServer;
  let api: TestApp;
  let owner: TestUser;
  let workspaceName: string;
  let output: { text(): string };

  beforeAll(async () => {
    smtp = await startTestSmtpServer({
      account: { user: SMTP_USER, password: SMTP_PASSWORD },
      refuses: (address) => address.endsWith('@refused.example.test'),
    });
    api = await startTestApp(
      testApiConfig({ LAZYBOY_SMTP_URL: smtpUrl(smtp.port), LAZYBOY_MAIL_FROM: FROM, LAZYBOY_PUBLIC_URL: `${PUBLIC_URL}/` }),
    );
    output = captureOutput();
    logEverything(api.app);
    owner = await signUp(api.url, { displayName: 'Mei Lin 林美' });
    workspaceName = `研發部 R&D ${randomUUID().slice(0, 6)}`;
    await request(api.url)
      .patch(`/api/workspaces/${owner.workspaceId}`)
      .set('Cookie', owner.cookie)
      .send({ name: workspaceName })
      .expect(200);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await api?.close();
    await smtp?.close();
  });

  const invite = (app: TestApp, email: string, role = 'member') =>
    request(app.url)
      .post(`/api/workspaces/${owner.workspaceId}/invitations`)
      .set('Cookie', owner.cookie)
      .send({ email, role, expiresInDays: 3 })
      .expect(201);

  it('mails the link with the workspace, the inviter, the role and the expiry in both languages; signing up through it joins', async () => {
    const email = newEmail('mailed');
    const created = await invite(api, email, 'admin');
    expect(created.body).toMatchObject({ email, status: 'pending', delivery: 'mailed', deliveryFailure: null });

    const mails = smtp.mails.filter((mail) => mail.envelope.to.includes(email));
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail?.envelope).toEqual({ from: FROM, to: [email] });
    expect(mail?.auth).toEqual({ method: 'PLAIN', user: SMTP_USER });
    expect(mail?.subject).toContain(workspaceName);
    const text = mail?.text ?? '';
    const expiry = `${(created.body.expiresAt as string).slice(0, 16).replace('T', ' ')} UTC`;
    for (const part of [workspaceName, 'Mei Lin 林美', '「管理者」', 'as admin', expiry, '邀請你', 'invites you']) {
      expect(text).toContain(part);
    }
    // The link is the one the answer shows, on the public URL (its trailing slash not doubled).
    const token = LINK.exec(text)?.[1];
    expect(token).toBe(created.body.token);
    expect(text).toContain(`${PUBLIC_URL}${created.body.path}`);

    const joined = await signUp(api.url, { email, invitationToken: token });
    expect(joined.workspaceId).toBe(owner.workspaceId);
    const members = await request(api.url)
      .get(`/api/workspaces/${owner.workspaceId}/members`)
      .set('Cookie', owner.cookie)
      .expect(200);
    expect(members.body.items).toContainEqual(expect.objectContaining({ email, role: 'admin' }));
  });

  it('still makes the invitation when the server refuses the recipient: `failed`, the link to copy, audited', async () => {
    const email = newEmail('nobody').replace('@example.test', '@refused.example.test');
    const created = await invite(api, email);
    expect(created.body).toMatchObject({ email, status: 'pending', delivery: 'failed', deliveryFailure: 'recipient_refused' });
    expect(created.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(smtp.mails.some((mail) => mail.envelope.to.includes(email))).toBe(false);
    const list = await request(api.url)
      .get(`/api/workspaces/${owner.workspaceId}/invitations`)
      .set('Cookie', owner.cookie)
      .expect(200);
    expect(list.body.items).toContainEqual(expect.objectContaining({ id: created.body.id, status: 'pending' }));
    const audit = await api.app
      .get(PrismaService)
      .auditLog.findMany({ where: { targetId: created.body.id }, orderBy: { id: 'asc' } });
    expect(audit.map((row) => [row.action, row.metadata])).toEqual([
      ['invitation.create', expect.objectContaining({ email, role: 'member' })],
      ['invitation.mail_failed', { email, reason: 'recipient_refused' }],
    ]);
  });

  it('answers 201 `failed` when nothing listens at the SMTP URL, and the invitation stays pending', async () => {
    const closed = await startTestSmtpServer();
    const port = closed.port;
    await closed.close();
    const unreachable = await startTestApp(
      testApiConfig({ LAZYBOY_SMTP_URL: smtpUrl(port), LAZYBOY_MAIL_FROM: FROM, LAZYBOY_PUBLIC_URL: PUBLIC_URL }),
    );
    logEverything(unreachable.app);
    try {
      const email = newEmail('unreachable');
      const created = await invite(unreachable, email);
      expect(created.body).toMatchObject({ email, delivery: 'failed', deliveryFailure: 'unreachable' });
      const list = await request(unreachable.url)
        .get(`/api/workspaces/${owner.workspaceId}/invitations`)
        .set('Cookie', owner.cookie)
        .expect(200);
      expect(list.body.items).toContainEqual(expect.objectContaining({ id: created.body.id, email, status: 'pending' }));
      // The link still works: the invitation is whole.
      await signUp(unreachable.url, { email, invitationToken: created.body.token });
      // The failure is in the log, saying why.
      expect(output.text()).toMatch(
        new RegExp(`invitation ${created.body.id}: the link was not mailed: mail not sent \\(unreachable\\)`),
      );
    } finally {
      await unreachable.close();
      logEverything(api.app);
    }
  });

  it('mails one address no more than its hourly share, however often it is invited; the invitation is made anyway', async () => {
    const email = newEmail('often');
    for (let i = 0; i < INVITATION_MAILS_PER_RECIPIENT; i++) expect((await invite(api, email)).body.delivery).toBe('mailed');
    const held = await invite(api, email);
    expect(held.body).toMatchObject({ email, status: 'pending', delivery: 'failed', deliveryFailure: 'rate_limited' });
    expect(smtp.mails.filter((mail) => mail.envelope.to.includes(email))).toHaveLength(INVITATION_MAILS_PER_RECIPIENT);
    // The held-back invitation is the pending one, its link good to copy.
    await signUp(api.url, { email, invitationToken: held.body.token });
  });

  it('tells instance admins whether mail is configured', async () => {
    expect((await api.app.get(InstanceSettingsService).view()).mailConfigured).toBe(true);
    const plain = await startTestApp(testApiConfig());
    try {
      expect((await plain.app.get(InstanceSettingsService).view()).mailConfigured).toBe(false);
    } finally {
      await plain.close();
      logEverything(api.app);
    }
  });

  it('never writes the SMTP password or an invitation token to the log, an answer or an audit row', async () => {
    const created = await invite(api, newEmail('secret'));
    const failed = await invite(api, newEmail('secret').replace('@example.test', '@refused.example.test'));
    const tokens = [created.body.token as string, failed.body.token as string];
    const audit = asText(await api.app.get(PrismaService).auditLog.findMany({ where: { workspaceId: owner.workspaceId } }));
    const answers = [
      JSON.stringify(created.body),
      JSON.stringify(failed.body),
      JSON.stringify(
        (await request(api.url).get(`/api/workspaces/${owner.workspaceId}/invitations`).set('Cookie', owner.cookie).expect(200))
          .body,
      ),
    ];
    const logged = output.text();
    // The log did see this suite's work (so searching it means something).
    expect(logged).toContain('the link was not mailed');
    const passwordForms = [
      SMTP_PASSWORD,
      encodeURIComponent(SMTP_PASSWORD),
      Buffer.from(SMTP_PASSWORD).toString('base64'),
      Buffer.from(`\u0000${SMTP_USER}\u0000${SMTP_PASSWORD}`).toString('base64'),
    ];
    for (const secret of passwordForms) for (const text of [logged, audit, ...answers]) expect(text).not.toContain(secret);
    for (const token of tokens) for (const text of [logged, audit]) expect(text).not.toContain(token);
  });
});
