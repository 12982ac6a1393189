import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ensureDatabase,
  findFreePort,
  migrateDatabase,
  startPostgres,
  startRedis,
  type RunningPostgres,
  type RunningRedis,
} from '@lazyboy/localstack';

const TEMPLATE_DATABASE = 'lazyboy_template';

/** Throwaway Postgres and Redis for one test run: free ports, a temporary directory, nothing kept. */
interface TestServices {
  root: string;
  postgres: RunningPostgres;
  redis: RunningRedis;
  databaseUrl: string;
  stop(): Promise<void>;
}

async function startTestServices(): Promise<TestServices> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-test-'));
  // The servers run as their own system users and must be able to reach their directories.
  chmodSync(root, 0o755);
  const password = randomBytes(16).toString('hex');
  const [postgres, redis] = await Promise.all([
    findFreePort().then((port) =>
      startPostgres({
        dataDir: path.join(root, 'postgres'),
        port,
        password,
        logFile: path.join(root, 'postgres.log'),
        ephemeral: true,
      }),
    ),
    findFreePort().then((port) =>
      startRedis({ dataDir: path.join(root, 'redis'), port, password, logFile: path.join(root, 'redis.log') }),
    ),
  ]);
  // Migrated once into a template nobody connects to; the shared test database and every suite that
  // needs a database of its own are copies of it.
  await ensureDatabase(postgres.url('postgres'), TEMPLATE_DATABASE);
  await migrateDatabase(postgres.url(TEMPLATE_DATABASE));
  await ensureDatabase(postgres.url('postgres'), 'lazyboy_test', TEMPLATE_DATABASE);
  const databaseUrl = postgres.url('lazyboy_test');
  return {
    root,
    postgres,
    redis,
    databaseUrl,
    async stop() {
      await Promise.all([redis.process.stop(), postgres.process.stop()]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

declare global {
  // Handed from global setup to global teardown (both run in Jest's parent process).
  var __lazyboyTestServices: TestServices | undefined;
}

// Jest loads global setup outside its module system: this file may import packages (built), not
// relative TypeScript files.
export default async function globalSetup(): Promise<void> {
  const services = await startTestServices();
  globalThis.__lazyboyTestServices = services;
  // Test workers are forked after this and inherit the environment.
  process.env.DATABASE_URL = services.databaseUrl;
  process.env.REDIS_URL = services.redis.url;
  process.env.LAZYBOY_TEST_ROOT = services.root;
  process.env.LAZYBOY_TEST_POSTGRES_ADMIN_URL = services.postgres.url('postgres');
  process.env.LAZYBOY_TEST_TEMPLATE_DATABASE = TEMPLATE_DATABASE;
}
