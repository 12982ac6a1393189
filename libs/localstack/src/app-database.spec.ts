import { afterAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { ensureAppDatabase, ensureAppRole, type DatabaseRole } from './app-database.js';
import { migrateDatabase, pendingMigrations } from './migrate.js';

const adminUrl = process.env.LAZYBOY_TEST_POSTGRES_ADMIN_URL ?? '';

function urlOf(database: string, role?: DatabaseRole): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  if (role) {
    url.username = role.name;
    url.password = role.password;
  }
  return url.toString();
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** Everything in the public schema that is not the role's (pgvector's own objects stay the superuser's). */
const NOT_OWNED = `
  SELECT 'relation ' || c.relname AS name FROM pg_class c
   WHERE c.relnamespace = 'public'::regnamespace AND c.relowner <> current_user::regrole
     AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
  UNION ALL
  SELECT 'type ' || t.typname FROM pg_type t
   WHERE t.typnamespace = 'public'::regnamespace AND t.typowner <> current_user::regrole AND t.typtype <> 'b'
     AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = t.oid AND d.deptype = 'e')
  UNION ALL
  SELECT 'schema public' FROM pg_namespace WHERE nspname = 'public' AND nspowner <> current_user::regrole
  UNION ALL
  SELECT 'database' FROM pg_database WHERE datname = current_database() AND datdba <> current_user::regrole`;

describe('the applications’ database role', () => {
  // A role of this suite's own: the shared one (lazyboy) is left as the test set-up made it.
  const role: DatabaseRole = { name: `app_${randomUUID().slice(0, 8)}`, password: randomBytes(12).toString('hex') };
  const databases: string[] = [];
  const newDatabase = () => {
    const name = `roles_${randomUUID().replaceAll('-', '')}`;
    databases.push(name);
    return name;
  };

  afterAll(async () => {
    for (const name of databases)
      await query(urlOf('postgres'), `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await query(urlOf('postgres'), `DROP ROLE IF EXISTS ${pg.escapeIdentifier(role.name)}`);
  });

  it('is what the tests’ API connects as: no superuser, and it owns everything it uses', async () => {
    const shared = process.env.DATABASE_URL!;
    const [me] = await query<{ rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean }>(
      shared,
      'SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user',
    );
    expect(me).toEqual({ rolsuper: false, rolcreatedb: false, rolcreaterole: false });
    expect(await query(shared, NOT_OWNED)).toEqual([]);
  });

  it('migrates a new database it owns, and may neither create databases nor roles', async () => {
    await ensureAppRole(adminUrl, role);
    const database = newDatabase();
    await ensureAppDatabase(adminUrl, database, role.name);
    const url = urlOf(database, role);
    await migrateDatabase(url);
    expect(await pendingMigrations(url)).toEqual([]);
    expect(await query(url, NOT_OWNED)).toEqual([]);
    await expect(query(url, 'CREATE DATABASE not_allowed')).rejects.toThrow(/permission denied/);
    await expect(query(url, 'CREATE ROLE not_allowed')).rejects.toThrow(/permission denied/);
    await expect(query(url, "COPY (SELECT 1) TO PROGRAM 'true'")).rejects.toThrow(/permission denied|must be superuser/);
  });

  it('takes over a database an earlier version migrated as the superuser, once, and can work in it', async () => {
    const database = newDatabase();
    await query(urlOf('postgres'), `CREATE DATABASE ${pg.escapeIdentifier(database)}`);
    await migrateDatabase(urlOf(database));
    const [before] = await query<{ owner: string }>(
      urlOf(database),
      `SELECT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relname = 'User'`,
    );
    expect(before!.owner).toBe('postgres');

    // A changed password is the role's new one: an existing role is brought back to what it should be.
    await ensureAppRole(adminUrl, { ...role, password: 'an-old-password' });
    await ensureAppRole(adminUrl, role);
    await ensureAppDatabase(adminUrl, database, role.name);
    await ensureAppDatabase(adminUrl, database, role.name);
    const url = urlOf(database, role);
    expect(await query(url, NOT_OWNED)).toEqual([]);
    expect(await pendingMigrations(url)).toEqual([]);
    // Owning the tables, it can change them (the next migration) and write rows with the sequences they own.
    await query(url, 'ALTER TABLE "AuditLog" ADD COLUMN spec_probe int');
    await query(url, 'ALTER TABLE "AuditLog" DROP COLUMN spec_probe');
    await query(url, `INSERT INTO "AuditLog" (action) VALUES ('spec.probe')`);
    const rows = await query<{ action: string }>(url, `SELECT action FROM "AuditLog" WHERE action = 'spec.probe'`);
    expect(rows).toEqual([{ action: 'spec.probe' }]);
  }, 60_000);
});
