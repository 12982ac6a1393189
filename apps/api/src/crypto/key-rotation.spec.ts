import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { AgentView, VaultAccountView, VaultResealReport, VaultRevealView } from '@lazyboy/contracts';
import { PrismaService } from '../persistence/prisma.service.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { asPerson, logIn, logInFirstAdmin, signUp, type TestUser } from '../../../../test/support/index.js';
import { COMPUTER_TOKEN_PURPOSE, MODEL_KEYS_PURPOSE, VAULT_ACCOUNTS_PURPOSE } from './purposes.js';
import { SecretBox } from './secret-box.js';

// A vault key rotation as an operator does it: the API restarted with the new key and the old one among
// LAZYBOY_VAULT_OLD_KEYS (secrets of both keys open all along), every secret re-sealed by an admin's call,
// then the old key dropped — and everything still opens.

const OLD_KEY = `old-vault-key-${'x'.repeat(32)}`;
const NEW_KEY = `new-vault-key-${'y'.repeat(32)}`;
const ADMIN_EMAIL = `root-${randomUUID().slice(0, 8)}@example.test`;
const APP_TOKEN = `app-token-${randomUUID()}`;

describe('vault key rotation', () => {
  let database: IsolatedDatabase;
  let api: TestApp | undefined;
  let owner: TestUser;
  let agentId = '';
  let accountId = '';

  const start = async (overrides: Record<string, string>) => {
    await api?.close();
    api = await startTestApp(
      testApiConfig({ DATABASE_URL: database.url, LAZYBOY_APP_TOKEN: APP_TOKEN, LAZYBOY_ADMIN_EMAIL: ADMIN_EMAIL, ...overrides }),
    );
    return api;
  };
  const as = (user: TestUser) => asPerson(api!.url, user.cookie);

  beforeAll(async () => {
    database = await createIsolatedDatabase();
    await start({ LAZYBOY_VAULT_KEY: OLD_KEY });
    owner = await signUp(api!.url);
    agentId = (await as(owner).call<AgentView>('POST', `/api/workspaces/${owner.workspaceId}/agents`, { name: 'Rota' })).id;
    await as(owner).call('PATCH', `/api/agents/${agentId}`, {
      modelSettings: { provider: 'openai-chat', baseUrl: 'https://models.example.com/v1' },
      modelApiKey: 'sk-rotation-test-key-1234',
    });
    accountId = (
      await as(owner).call<VaultAccountView>(
        'POST',
        `/api/agents/${agentId}/vault`,
        {
          site: 'https://rotate.example.com',
          username: 'ada',
          password: 'rotating-password',
          notes: 'kept through the rotation',
        },
        201,
      )
    ).id;
    // A computer token sealed under the old key, as a booted computer would have (no worker needed here).
    const prisma = api!.app.get(PrismaService);
    await prisma.computer.create({
      data: {
        workspaceId: owner.workspaceId,
        kind: 'private',
        agentId,
        homeKey: `home-${randomUUID()}`,
        controlTokenCipher: new Uint8Array(new SecretBox(OLD_KEY, COMPUTER_TOKEN_PURPOSE).seal('control-token')),
      },
    });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await database?.drop();
  });

  it('reads everything during the rotation, re-seals it under the new key, and reads it without the old one', async () => {
    await start({ LAZYBOY_VAULT_KEY: NEW_KEY, LAZYBOY_VAULT_OLD_KEYS: OLD_KEY });
    owner = { ...owner, cookie: await logIn(api!.url, owner.email, owner.password) };
    expect((await as(owner).call<AgentView>('GET', `/api/agents/${agentId}`)).modelApiKeyLast4).toBe('1234');

    // A new secret written during the rotation is sealed under the new key already.
    await as(owner).call('PATCH', `/api/vault/${accountId}`, { label: 'renamed' });
    const admin = { cookie: await logInFirstAdmin(api!.url, ADMIN_EMAIL, APP_TOKEN) } as TestUser;
    const member = await as(owner).raw('POST', '/api/admin/vault-key/reseal');
    expect(member.status).toBe(403);
    const report = await as(admin).call<VaultResealReport>('POST', '/api/admin/vault-key/reseal');
    expect(report).toEqual({ resealed: 3, current: 0, unreadable: 0, oldKeys: 1 });
    expect(await as(admin).call<VaultResealReport>('POST', '/api/admin/vault-key/reseal')).toEqual({
      resealed: 0,
      current: 3,
      unreadable: 0,
      oldKeys: 1,
    });

    const prisma = api!.app.get(PrismaService);
    const current = (purpose: string) => new SecretBox(NEW_KEY, purpose);
    const agent = await prisma.agent.findUniqueOrThrow({ where: { id: agentId } });
    expect(current(MODEL_KEYS_PURPOSE).isCurrent(agent.modelApiKeyCipher!)).toBe(true);
    const account = await prisma.vaultAccount.findUniqueOrThrow({ where: { id: accountId } });
    expect(current(VAULT_ACCOUNTS_PURPOSE).isCurrent(account.secretCipher)).toBe(true);
    const computer = await prisma.computer.findFirstOrThrow({ where: { agentId } });
    expect(current(COMPUTER_TOKEN_PURPOSE).open(computer.controlTokenCipher!)).toBe('control-token');

    const audit = await prisma.auditLog.findFirstOrThrow({ where: { action: 'vault.key_reseal' }, orderBy: { id: 'asc' } });
    expect(audit.metadata).toMatchObject({ resealed: 3 });

    // The old key retired: everything still opens.
    await start({ LAZYBOY_VAULT_KEY: NEW_KEY });
    owner = { ...owner, cookie: await logIn(api!.url, owner.email, owner.password) };
    expect((await as(owner).call<AgentView>('GET', `/api/agents/${agentId}`)).modelApiKeyLast4).toBe('1234');
    const revealed = await as(owner).call<VaultRevealView>('POST', `/api/vault/${accountId}/reveal`, {
      password: owner.password,
    });
    expect(revealed.password).toBe('rotating-password');
    const vault = await as(owner).call<{ own: VaultAccountView[] }>('GET', `/api/agents/${agentId}/vault`);
    expect(vault.own[0]).toMatchObject({ label: 'renamed', notes: 'kept through the rotation' });
  });

  it('counts secrets of a key the server was not given as unreadable and leaves them', async () => {
    const prisma = api!.app.get(PrismaService);
    const stray = new Uint8Array(new SecretBox(`another-key-${'z'.repeat(32)}`, VAULT_ACCOUNTS_PURPOSE).seal('{}'));
    await prisma.vaultAccount.update({ where: { id: accountId }, data: { secretCipher: stray } });
    const admin = { cookie: await logInFirstAdmin(api!.url, ADMIN_EMAIL, APP_TOKEN) } as TestUser;
    const report = await as(admin).call<VaultResealReport>('POST', '/api/admin/vault-key/reseal');
    expect(report).toEqual({ resealed: 0, current: 2, unreadable: 1, oldKeys: 0 });
    const row = await prisma.vaultAccount.findUniqueOrThrow({ where: { id: accountId } });
    expect(Buffer.from(row.secretCipher).equals(Buffer.from(stray))).toBe(true);
  });
});
