import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { AgentVaultView, VaultAccountView, VaultImportResult, VaultRevealView, VaultTotpCodeView } from '@lazyboy/contracts';
import { PrismaService } from '../persistence/prisma.service.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { asPerson, createInvitation, signUp, type TestUser } from '../../../../test/support/index.js';

// The vault's routes as people use them, on a real Postgres and Redis: what is stored (sealed, never in
// the clear), what is shown (never a password but to an owner who re-enters theirs), who may do what,
// and bad input that changes nothing.

const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** Rows as text, for searching them for a value (audit ids are bigints). */
const asText = (rows: unknown) =>
  JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));

describe('the vault over HTTP', () => {
  let database: IsolatedDatabase;
  let api: TestApp;
  let prisma: PrismaService;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let agentId = '';
  let otherAgentId = '';

  const as = (user: TestUser) => asPerson(api.url, user.cookie);

  beforeAll(async () => {
    database = await createIsolatedDatabase();
    api = await startTestApp(testApiConfig({ DATABASE_URL: database.url }));
    prisma = api.app.get(PrismaService);
    owner = await signUp(api.url);
    const email = `member-${randomUUID()}@example.test`;
    const token = await createInvitation(api.url, owner.cookie, owner.workspaceId, email, 'member');
    member = await signUp(api.url, { email, invitationToken: token });
    stranger = await signUp(api.url);
    agentId = (await as(owner).call<{ id: string }>('POST', `/api/workspaces/${owner.workspaceId}/agents`, { name: 'Vera' })).id;
    otherAgentId = (await as(owner).call<{ id: string }>('POST', `/api/workspaces/${owner.workspaceId}/agents`, { name: 'Otto' }))
      .id;
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await database?.drop();
  });

  it('saves a login sealed, lists it without its password, and names the site by its origin', async () => {
    const password = `pw-${randomUUID()}`;
    const created = await as(member).call<VaultAccountView>(
      'POST',
      `/api/agents/${agentId}/vault`,
      {
        site: 'bank.example.com/login?next=1',
        username: 'ada@example.com',
        password,
        totp: `otpauth://totp/Bank:ada?secret=${TOTP_SECRET}&issuer=Bank`,
        notes: 'recovery codes in the safe',
      },
      201,
    );
    expect(created).toMatchObject({ site: 'https://bank.example.com', username: 'ada@example.com', hasTotp: true, agentId });
    expect(JSON.stringify(created)).not.toContain(password);

    const listed = await as(owner).call<AgentVaultView>('GET', `/api/agents/${agentId}/vault`);
    expect(listed.own.map((a) => a.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(password);
    expect(JSON.stringify(listed)).not.toContain(TOTP_SECRET);

    // At rest: one sealed cipher, nothing of the password or the secret in any column.
    const row = await prisma.vaultAccount.findUniqueOrThrow({ where: { id: created.id } });
    expect(Buffer.from(row.secretCipher).toString('latin1')).not.toContain(password);
    expect(JSON.stringify({ ...row, secretCipher: null })).not.toContain(password);

    const audit = await prisma.auditLog.findMany({ where: { targetId: created.id } });
    expect(audit.map((a) => a.action)).toEqual(['vault.account_create']);
    expect(asText(audit)).not.toContain(password);
  });

  it('shows the current TOTP code, the one an authenticator app shows', async () => {
    const created = await as(owner).call<VaultAccountView>(
      'POST',
      `/api/agents/${agentId}/vault`,
      {
        site: 'https://code.example.com',
        username: 'ada',
        password: 'a-long-password',
        totp: TOTP_SECRET.toLowerCase().replace(/(.{4})/g, '$1 '),
      },
      201,
    );
    const code = await as(member).call<VaultTotpCodeView>('GET', `/api/vault/${created.id}/totp`);
    const expected = new TOTP({ secret: Secret.fromBase32(TOTP_SECRET) });
    expect(expected.validate({ token: code.code, window: 1 })).not.toBeNull();
    expect(code.expiresInSeconds).toBeGreaterThan(0);
    expect(code.expiresInSeconds).toBeLessThanOrEqual(30);
  });

  it('refuses bad input with a 400 naming the field, and stores nothing', async () => {
    const before = await prisma.vaultAccount.count();
    const cases: [Record<string, unknown>, string][] = [
      [{ site: 'https://x.example.com', username: 'a', password: 'p', totp: 'otpauth://totp/x?secret=!!!' }, 'totp'],
      [
        {
          site: 'https://x.example.com',
          username: 'a',
          password: 'p',
          totp: 'otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1',
        },
        'totp',
      ],
      [{ site: 'https://x.example.com', username: 'a', password: 'p', totp: 'not base32 at all!' }, 'totp'],
      [{ site: 'not a url', username: 'a', password: 'p' }, 'site'],
      [{ site: 'ftp://files.example.com', username: 'a', password: 'p' }, 'site'],
      [{ site: 'https://user:pw@x.example.com', username: 'a', password: 'p' }, 'site'],
      [{ site: 'https://x.example.com', username: 'a', password: 'p'.repeat(100_000) }, 'password'],
      [{ site: 'https://x.example.com', username: 'a', password: 'line\nbreak' }, 'password'],
      [{ site: 'https://x.example.com', username: 'a', password: 'p', extra: 1 }, ''],
    ];
    for (const [body, field] of cases) {
      const res = await as(owner).raw('POST', `/api/agents/${agentId}/vault`, body);
      const text = await res.text();
      expect({ field, status: res.status }).toEqual({ field, status: 400 });
      const parsed = JSON.parse(text) as { error: { code: string; message: string } };
      expect(parsed.error.code).toBe('VALIDATION_FAILED');
      expect(parsed.error.message).toContain(field);
      // The refusal never echoes what was sent.
      expect(text).not.toContain('p'.repeat(200));
    }
    expect(await prisma.vaultAccount.count()).toBe(before);
  });

  it('refuses a second account with the same site and username (409), for shared accounts too', async () => {
    const body = { site: 'https://twice.example.com', username: 'same', password: 'password-1' };
    await as(owner).call('POST', `/api/agents/${agentId}/vault`, body, 201);
    const again = await as(owner).raw('POST', `/api/agents/${agentId}/vault`, { ...body, password: 'password-2' });
    expect(again.status).toBe(409);
    await as(owner).call('POST', `/api/workspaces/${owner.workspaceId}/vault`, body, 201);
    const shared = await as(owner).raw('POST', `/api/workspaces/${owner.workspaceId}/vault`, body);
    expect(shared.status).toBe(409);
  });

  it('changes the password write-only and reveals it only to an owner with their own password', async () => {
    const created = await as(member).call<VaultAccountView>(
      'POST',
      `/api/agents/${agentId}/vault`,
      {
        site: 'https://reveal.example.com',
        username: 'ada',
        password: 'first-password',
      },
      201,
    );
    const changed = await as(member).call<VaultAccountView>('PATCH', `/api/vault/${created.id}`, {
      password: 'second-password',
      label: 'Bank',
    });
    expect(changed).toMatchObject({ label: 'Bank', hasTotp: false });
    expect(JSON.stringify(changed)).not.toContain('second-password');

    const byMember = await as(member).raw('POST', `/api/vault/${created.id}/reveal`, { password: member.password });
    expect(byMember.status).toBe(403);
    const wrong = await as(owner).raw('POST', `/api/vault/${created.id}/reveal`, { password: 'not-my-password' });
    expect(wrong.status).toBe(403);
    const revealed = await as(owner).call<VaultRevealView>('POST', `/api/vault/${created.id}/reveal`, {
      password: owner.password,
    });
    expect(revealed).toEqual({ password: 'second-password', totpSecret: null });

    const actions = (await prisma.auditLog.findMany({ where: { targetId: created.id }, orderBy: { id: 'asc' } })).map(
      (a) => a.action,
    );
    expect(actions).toEqual(['vault.account_create', 'vault.account_update', 'vault.reveal_refused', 'vault.account_reveal']);
    const audit = asText(await prisma.auditLog.findMany({ where: { targetId: created.id } }));
    expect(audit).not.toContain('second-password');
    expect(audit).not.toContain('not-my-password');
  });

  it('keeps shared accounts to owners, and lets an agent use one only when granted', async () => {
    const body = { site: 'https://shared.example.com', username: 'team', password: 'team-password' };
    const byMember = await as(member).raw('POST', `/api/workspaces/${owner.workspaceId}/vault`, body);
    expect(byMember.status).toBe(403);
    const shared = await as(owner).call<VaultAccountView>('POST', `/api/workspaces/${owner.workspaceId}/vault`, body, 201);
    expect(shared.agentId).toBeNull();
    expect(
      (await as(member).call<VaultAccountView[]>('GET', `/api/workspaces/${owner.workspaceId}/vault`)).map((a) => a.id),
    ).toContain(shared.id);

    expect((await as(owner).call<AgentVaultView>('GET', `/api/agents/${agentId}/vault`)).shared).toEqual([]);
    const byMemberGrant = await as(member).raw('PUT', `/api/vault/${shared.id}/agents`, { agentIds: [agentId] });
    expect(byMemberGrant.status).toBe(403);
    const granted = await as(owner).call<VaultAccountView>('PUT', `/api/vault/${shared.id}/agents`, { agentIds: [agentId] });
    expect(granted.agentIds).toEqual([agentId]);
    expect((await as(member).call<AgentVaultView>('GET', `/api/agents/${agentId}/vault`)).shared.map((a) => a.id)).toEqual([
      shared.id,
    ]);
    expect((await as(member).call<AgentVaultView>('GET', `/api/agents/${otherAgentId}/vault`)).shared).toEqual([]);

    // Another workspace's agent cannot be granted: 400, and the grants stay as they were.
    const foreignAgent = (
      await as(stranger).call<{ id: string }>('POST', `/api/workspaces/${stranger.workspaceId}/agents`, { name: 'X' })
    ).id;
    const foreign = await as(owner).raw('PUT', `/api/vault/${shared.id}/agents`, { agentIds: [agentId, foreignAgent] });
    expect(foreign.status).toBe(400);
    expect((await prisma.vaultGrant.findMany({ where: { accountId: shared.id } })).map((g) => g.agentId)).toEqual([agentId]);

    const memberEdit = await as(member).raw('PATCH', `/api/vault/${shared.id}`, { password: 'taken-over' });
    expect(memberEdit.status).toBe(403);
    const memberDelete = await as(member).raw('DELETE', `/api/vault/${shared.id}`);
    expect(memberDelete.status).toBe(403);
    expect(await prisma.vaultAccount.count({ where: { id: shared.id } })).toBe(1);
  });

  it("answers another workspace's person 404 on every vault route, and changes nothing", async () => {
    const account = await as(owner).call<VaultAccountView>(
      'POST',
      `/api/agents/${agentId}/vault`,
      {
        site: 'https://private.example.com',
        username: 'ada',
        password: 'private-password',
        totp: TOTP_SECRET,
      },
      201,
    );
    const attempts: [string, string, unknown?][] = [
      ['GET', `/api/agents/${agentId}/vault`],
      ['POST', `/api/agents/${agentId}/vault`, { site: 'https://x.example.com', username: 'x', password: 'x-password' }],
      ['POST', `/api/agents/${agentId}/vault/import`, { csv: 'url,username,password\nhttps://x.example.com,x,y' }],
      ['GET', `/api/workspaces/${owner.workspaceId}/vault`],
      [
        'POST',
        `/api/workspaces/${owner.workspaceId}/vault`,
        { site: 'https://x.example.com', username: 'x', password: 'x-password' },
      ],
      ['PATCH', `/api/vault/${account.id}`, { password: 'stolen' }],
      ['DELETE', `/api/vault/${account.id}`],
      ['PUT', `/api/vault/${account.id}/agents`, { agentIds: [] }],
      ['POST', `/api/vault/${account.id}/reveal`, { password: stranger.password }],
      ['GET', `/api/vault/${account.id}/totp`],
    ];
    const before = await prisma.vaultAccount.count();
    for (const [method, route, body] of attempts) {
      const res = await as(stranger).raw(method, route, body);
      const text = await res.text();
      expect({ route: `${method} ${route}`, status: res.status }).toEqual({ route: `${method} ${route}`, status: 404 });
      expect(text).not.toContain('private-password');
    }
    expect(await prisma.vaultAccount.count()).toBe(before);
    const row = await prisma.vaultAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(row.updatedAt.toISOString()).toBe(account.updatedAt);
  });

  it("imports a browser's CSV export: new logins saved, duplicates left, bad rows named by line", async () => {
    const fresh = (
      await as(owner).call<{ id: string }>('POST', `/api/workspaces/${owner.workspaceId}/agents`, {
        name: `Imp ${randomUUID().slice(0, 6)}`,
      })
    ).id;
    const csv = [
      'name,url,username,password,note',
      'Mail,https://mail.example.com/login,ada,"pa,ss""word",first',
      'Mail again,https://mail.example.com/,ada,other-password,',
      'Broken,javascript:alert(1),x,y,',
      'No password,https://np.example.com,x,,',
      'Chat,chat.example.com,bea,bea-password,',
    ].join('\n');
    const result = await as(member).call<VaultImportResult>('POST', `/api/agents/${fresh}/vault/import`, { csv });
    expect(result.imported).toBe(2);
    expect(result.duplicates).toBe(1);
    expect(result.skipped.map((s) => s.line)).toEqual([4, 5]);
    for (const value of ['other-password', 'bea-password', 'pa,ss']) expect(JSON.stringify(result)).not.toContain(value);
    const listed = await as(owner).call<AgentVaultView>('GET', `/api/agents/${fresh}/vault`);
    expect(listed.own.map((a) => [a.site, a.username, a.notes])).toEqual([
      ['https://mail.example.com', 'ada', 'first'],
      ['https://chat.example.com', 'bea', ''],
    ]);
    const revealed = await as(owner).call<VaultRevealView>('POST', `/api/vault/${listed.own[0]!.id}/reveal`, {
      password: owner.password,
    });
    expect(revealed.password).toBe('pa,ss"word');

    const notCsv = await as(owner).raw('POST', `/api/agents/${fresh}/vault/import`, { csv: 'just some text' });
    expect(notCsv.status).toBe(400);
  });

  it('deletes an account, audited with its site only', async () => {
    const created = await as(member).call<VaultAccountView>(
      'POST',
      `/api/agents/${agentId}/vault`,
      {
        site: 'https://gone.example.com',
        username: 'ada',
        password: 'gone-password',
      },
      201,
    );
    await as(member).call('DELETE', `/api/vault/${created.id}`, undefined, 204);
    expect(await prisma.vaultAccount.count({ where: { id: created.id } })).toBe(0);
    const again = await as(member).raw('DELETE', `/api/vault/${created.id}`);
    expect(again.status).toBe(404);
    const audit = await prisma.auditLog.findFirstOrThrow({ where: { targetId: created.id, action: 'vault.account_delete' } });
    expect(audit.metadata).toEqual({ site: 'https://gone.example.com' });
  });
});
