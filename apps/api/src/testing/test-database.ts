import { randomUUID } from 'node:crypto';
import pg from 'pg';

export interface IsolatedDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A migrated database of its own, copied from the template the test set-up migrated: for suites that
 * need an empty database (first-start behaviour) while other suites share lazyboy_test.
 */
export async function createIsolatedDatabase(): Promise<IsolatedDatabase> {
  const adminUrl = process.env.LAZYBOY_TEST_POSTGRES_ADMIN_URL;
  const template = process.env.LAZYBOY_TEST_TEMPLATE_DATABASE;
  if (!adminUrl || !template) throw new Error('run through the test set-up (npm run test:jest), which starts Postgres');
  const name = `isolated_${randomUUID().replaceAll('-', '')}`;
  await withAdmin(adminUrl, (client) =>
    client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`),
  );
  const url = new URL(adminUrl);
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
