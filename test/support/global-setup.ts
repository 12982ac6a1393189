import { ensureAppDatabase, migrateDatabase, startScratchServices, type ScratchServices } from '@lazyboy/localstack';

const TEMPLATE_DATABASE = 'lazyboy_template';

type TestServices = ScratchServices & { databaseUrl: string };

async function startTestServices(): Promise<TestServices> {
  const services = await startScratchServices('lazyboy-test-');
  const { postgres, appRole } = services;
  // Migrated once into a template nobody connects to; the shared test database and every suite that
  // needs a database of its own are copies of it. All belong to the applications' role, which migrates
  // them and which the API connects as, like `lazyboy up` does: never the superuser.
  const admin = postgres.url('postgres');
  await ensureAppDatabase(admin, TEMPLATE_DATABASE, appRole.name);
  await migrateDatabase(postgres.url(TEMPLATE_DATABASE, appRole));
  await ensureAppDatabase(admin, 'lazyboy_test', appRole.name, TEMPLATE_DATABASE);
  return { ...services, databaseUrl: postgres.url('lazyboy_test', appRole) };
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
