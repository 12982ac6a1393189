import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError } from '@lazyboy/contracts';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { loadApiConfig } from '../config/api-config.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig, TEST_INTERNAL_SECRET, TEST_VAULT_KEY } from '../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { verifyPassword } from './password-hasher.js';

describe('first admin from LAZYBOY_APP_TOKEN', () => {
  const env = { ...process.env, LAZYBOY_VAULT_KEY: TEST_VAULT_KEY, LAZYBOY_INTERNAL_SECRET: TEST_INTERNAL_SECRET };

  it('must be at least 32 characters when the API binds beyond loopback', () => {
    expect(() => loadApiConfig({ ...env, LAZYBOY_API_HOST: '0.0.0.0', LAZYBOY_APP_TOKEN: 'short-token' })).toThrow(ConfigError);
    expect(() => loadApiConfig({ ...env, LAZYBOY_API_HOST: '0.0.0.0', LAZYBOY_APP_TOKEN: undefined })).toThrow(
      /LAZYBOY_APP_TOKEN: must be at least 32 characters/,
    );
    expect(loadApiConfig({ ...env, LAZYBOY_API_HOST: '0.0.0.0', LAZYBOY_APP_TOKEN: 'x'.repeat(32) }).LAZYBOY_API_HOST).toBe(
      '0.0.0.0',
    );
    expect(loadApiConfig({ ...env, LAZYBOY_API_HOST: '127.0.0.1', LAZYBOY_APP_TOKEN: 'short-token' }).LAZYBOY_APP_TOKEN).toBe(
      'short-token',
    );
  });

  describe('on an empty database', () => {
    const token = 'first-token-0123456789abcdef0123456789';
    // Mixed case on purpose: the admin is stored under the lower-cased address. Unique per run: failed
    // sign-ins are counted per email in the Redis every suite shares.
    const local = `owner-${randomUUID().slice(0, 8)}`;
    const configuredEmail = `${local.toUpperCase()}@Example.COM`;
    const email = `${local}@example.com`;
    let database: IsolatedDatabase;
    let api: TestApp | undefined;

    const start = async (appToken: string) => {
      api = await startTestApp(
        testApiConfig({ DATABASE_URL: database.url, LAZYBOY_APP_TOKEN: appToken, LAZYBOY_ADMIN_EMAIL: configuredEmail }),
      );
      return api;
    };
    const login = (app: TestApp, loginEmail: string, password: string) =>
      request(app.url).post('/api/auth/login').send({ email: loginEmail, password });

    beforeAll(async () => {
      database = await createIsolatedDatabase();
      await start(token);
    });
    afterAll(async () => {
      await api?.close();
      await database?.drop();
    });

    it('creates one instance admin whose password is the token, owning a first workspace', async () => {
      const prisma = api!.app.get(PrismaService);
      const users = await prisma.user.findMany({ include: { memberships: { include: { workspace: true } } } });
      expect(users).toHaveLength(1);
      const admin = users[0]!;
      expect(admin).toMatchObject({ email, isAdmin: true });
      expect(admin.passwordHash).not.toContain(token);
      expect(await verifyPassword(token, admin.passwordHash!)).toBe(true);
      expect(await verifyPassword('not-the-token', admin.passwordHash!)).toBe(false);
      expect(admin.memberships.map((m) => [m.role, m.workspace.slug])).toEqual([['owner', 'home']]);
      expect(await prisma.auditLog.count({ where: { action: 'admin.bootstrap', actorUserId: admin.id } })).toBe(1);
    });

    it('is the first admin’s password on the ordinary login endpoint', async () => {
      const res = await login(api!, configuredEmail, token).expect(200);
      expect(res.body.user).toMatchObject({ email, isAdmin: true });
      expect(res.body.workspaces).toEqual([expect.objectContaining({ slug: 'home', role: 'owner' })]);
      await login(api!, email, `${token}x`).expect(401);
    });

    it('changes nobody’s password and creates nobody when the API restarts with another token', async () => {
      await api!.close();
      api = undefined;
      const otherToken = 'second-token-0123456789abcdef012345';
      const second = await start(otherToken);

      const users = await second.app.get(PrismaService).user.findMany();
      expect(users).toHaveLength(1);
      expect(await verifyPassword(token, users[0]!.passwordHash!)).toBe(true);
      await login(second, email, otherToken).expect(401);
      await login(second, email, token).expect(200);
    });
  });
});
