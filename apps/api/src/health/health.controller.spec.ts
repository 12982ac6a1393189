import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { findFreePort, startRedis, type RunningRedis } from '@lazyboy/localstack';
import { AppModule } from '../app.module.js';
import type { ApiConfig } from '../config/api-config.js';
import { testApiConfig } from '../testing/test-config.js';
import { sleep } from '../../../../test/support/index.js';

async function createApp(config: ApiConfig): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forConfig(config)] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

/** Polls /readyz until it answers `status`, returning that response. */
async function readyzUntil(app: INestApplication, status: number, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(app.getHttpServer()).get('/readyz');
    if (res.status === status || Date.now() > deadline) return res;
    await sleep(200);
  }
}

describe('health endpoints', () => {
  // This suite stops and restarts Redis, so it runs its own instead of the shared one.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-health-'));
  const password = randomBytes(12).toString('hex');
  let port: number;
  let redis: RunningRedis;
  let app: INestApplication;

  const startOwnRedis = () =>
    startRedis({ dataDir: path.join(dir, 'redis'), port, password, logFile: path.join(dir, 'redis.log') });

  beforeAll(async () => {
    chmodSync(dir, 0o755);
    port = await findFreePort();
    redis = await startOwnRedis();
    app = await createApp(testApiConfig({ REDIS_URL: redis.url }));
  });

  afterAll(async () => {
    await app?.close();
    await redis?.process.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('/healthz answers while the process is up', async () => {
    const res = await request(app.getHttpServer()).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
  });

  it('/readyz follows Redis going away and coming back, without restarting the API', async () => {
    const ready = await request(app.getHttpServer()).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', failing: [], checks: { postgres: { ok: true }, redis: { ok: true } } });

    await redis.process.stop();
    const down = await readyzUntil(app, 503);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      status: 'unavailable',
      failing: ['redis'],
      checks: { postgres: { ok: true }, redis: { ok: false } },
      error: { code: 'NOT_READY' },
    });
    expect(down.body.error.message).toContain('redis');

    redis = await startOwnRedis();
    const back = await readyzUntil(app, 200);
    expect(back.status).toBe(200);
    expect(back.body.failing).toEqual([]);
  });

  it('/readyz names postgres when the database cannot be reached', async () => {
    const closedPort = await findFreePort();
    const broken = await createApp(
      testApiConfig({ REDIS_URL: redis.url, DATABASE_URL: `postgresql://postgres:x@127.0.0.1:${closedPort}/lazyboy` }),
    );
    try {
      const res = await request(broken.getHttpServer()).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.failing).toEqual(['postgres']);
      expect(res.body.checks.redis.ok).toBe(true);
    } finally {
      await broken.close();
    }
  });
});
