import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError } from '@lazyboy/contracts';
import request from 'supertest';
import { loadApiConfig } from '../config/api-config.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig, TEST_VAULT_KEY } from '../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';

describe('LAZYBOY_APP_TOKEN', () => {
  const env = { ...process.env, LAZYBOY_VAULT_KEY: TEST_VAULT_KEY };

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
    const token = 'bootstrap-token-0123456789abcdef-0123';
    let database: IsolatedDatabase;
    let api: TestApp;

    beforeAll(async () => {
      database = await createIsolatedDatabase();
      api = await startTestApp(
        testApiConfig({ DATABASE_URL: database.url, LAZYBOY_APP_TOKEN: token, LAZYBOY_ADMIN_EMAIL: 'root@example.test' }),
      );
    });
    afterAll(async () => {
      await api?.close();
      await database?.drop();
    });

    it('is the first admin’s password on the ordinary login endpoint', async () => {
      const res = await request(api.url)
        .post('/api/auth/login')
        .send({ email: 'ROOT@example.test', password: token })
        .expect(200);
      expect(res.body.user).toMatchObject({ email: 'root@example.test', isAdmin: true });
      expect(res.body.workspaces).toEqual([expect.objectContaining({ slug: 'home', role: 'owner' })]);
      await request(api.url)
        .post('/api/auth/login')
        .send({ email: 'root@example.test', password: `${token}x` })
        .expect(401);
    });
  });
});
