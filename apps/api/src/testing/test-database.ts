import { randomUUID } from 'node:crypto';
import pg from 'pg';

export interface IsolatedDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A migrated database of its own, copied from the template the test set-up migrated: for suites that
 * need an empty database (first-start behaviour) while other suites share lazyboy_test. Like that one, it
 * belongs to the applications' role and its URL connects as that role.
 */
export async function createIsolatedDatabase(): Promise<IsolatedDatabase> {
  const adminUrl = process.env.LAZYBOY_TEST_POSTGRES_ADMIN_URL;
  const template = process.env.LAZYBOY_TEST_TEMPLATE_DATABASE;
  const shared = process.env.DATABASE_URL;
  if (!adminUrl || !template || !shared)
    throw new Error('run through the test set-up (npm run test:jest), which starts Postgres');
  const name = `isolated_${randomUUID().replaceAll('-', '')}`;
  const url = new URL(shared);
  const owner = pg.escapeIdentifier(decodeURIComponent(url.username));
  await withAdmin(adminUrl, (client) =>
    client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} OWNER ${owner} TEMPLATE ${pg.escapeIdentifier(template)}`),
  );
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)),
  };
}

async function withAdmin(adminUrl: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
