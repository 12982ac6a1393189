import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppModule } from '../app.module.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { testApiConfig } from '../testing/test-config.js';
import { verifyPassword } from './password-hasher.js';

async function startApi(databaseUrl: string, token: string): Promise<INestApplication> {
  const config = testApiConfig({ DATABASE_URL: databaseUrl, LAZYBOY_APP_TOKEN: token, LAZYBOY_ADMIN_EMAIL: 'Owner@Example.COM' });
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forConfig(config)] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe('first admin on an empty database', () => {
  let database: IsolatedDatabase;

  beforeAll(async () => {
    database = await createIsolatedDatabase();
  });
  afterAll(() => database.drop());

  it('turns LAZYBOY_APP_TOKEN into the admin password once, with a workspace they own', async () => {
    const token = 'first-token-0123456789abcdef0123456789';
    const first = await startApi(database.url, token);
    const prisma = first.get(PrismaService);
    try {
      const users = await prisma.user.findMany({ include: { memberships: { include: { workspace: true } } } });
      expect(users).toHaveLength(1);
      const admin = users[0]!;
      expect(admin).toMatchObject({ email: 'owner@example.com', isAdmin: true });
      expect(admin.passwordHash).not.toContain(token);
      expect(await verifyPassword(token, admin.passwordHash!)).toBe(true);
      expect(await verifyPassword('not-the-token', admin.passwordHash!)).toBe(false);
      expect(admin.memberships.map((m) => [m.role, m.workspace.slug])).toEqual([['owner', 'home']]);
      expect(await prisma.auditLog.count({ where: { action: 'admin.bootstrap', actorUserId: admin.id } })).toBe(1);
    } finally {
      await first.close();
    }

    // A restart with another token changes nobody's password and creates nobody.
    const second = await startApi(database.url, 'second-token-0123456789abcdef012345');
    try {
      const users = await second.get(PrismaService).user.findMany();
      expect(users).toHaveLength(1);
      expect(await verifyPassword(token, users[0]!.passwordHash!)).toBe(true);
    } finally {
      await second.close();
    }
  });
});
