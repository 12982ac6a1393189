import pg from 'pg';

// The API connects as a login role of its own that owns LazyBoy's database and everything in it, but has no
// rights beyond it: not a superuser (which could read files, run programs as the postgres user and reach
// every database), and it can create neither databases nor roles. The superuser only sets this up.

/** A Postgres login role: its name and password. */
export interface DatabaseRole {
  name: string;
  password: string;
}

/** The role `lazyboy up` and the tests give the API. */
export const APP_ROLE_NAME = 'lazyboy';

/** Extensions the migrations need that only a superuser may create (pgvector is not a trusted extension). */
const SUPERUSER_EXTENSIONS = ['vector'];

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates `role`, or brings an existing one back to exactly this: a plain login with this password. */
export async function ensureAppRole(adminUrl: string, role: DatabaseRole): Promise<void> {
  await withClient(adminUrl, async (client) => {
    const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role.name])).rowCount !== 0;
    await client.query(
      `${exists ? 'ALTER' : 'CREATE'} ROLE ${pg.escapeIdentifier(role.name)} WITH LOGIN NOSUPERUSER NOCREATEDB ` +
        `NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${client.escapeLiteral(role.password)}`,
    );
  });
}

/**
 * Makes `database` the `owner` role's: created for it (optionally as a copy of `template`, which must have no
 * open connections) or handed over, its public schema and every table, sequence, type and function in it
 * owned by the role, and the superuser-only extensions the migrations need created beforehand (the
 * migrations' own `CREATE EXTENSION IF NOT EXISTS` then does nothing). Databases an earlier version migrated
 * as the superuser are handed over the first time; after that nothing is left to change and nothing is locked.
 */
export async function ensureAppDatabase(adminUrl: string, database: string, owner: string, template?: string): Promise<void> {
  await withClient(adminUrl, async (client) => {
    const found = await client.query<{ owner: string }>(
      'SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1',
      [database],
    );
    const name = pg.escapeIdentifier(database);
    const role = pg.escapeIdentifier(owner);
    if (found.rowCount === 0) {
      const from = template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : '';
      await client.query(`CREATE DATABASE ${name} OWNER ${role}${from}`);
    } else if (found.rows[0]!.owner !== owner) {
      await client.query(`ALTER DATABASE ${name} OWNER TO ${role}`);
    }
  });
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  await withClient(url.toString(), async (client) => {
    for (const extension of SUPERUSER_EXTENSIONS) {
      await client.query(`CREATE EXTENSION IF NOT EXISTS ${pg.escapeIdentifier(extension)}`);
    }
    await client.query(handOverSql(client, owner));
  });
}

/** Gives `owner` the public schema and whatever in it belongs to someone else (extensions' members excepted). */
function handOverSql(client: pg.Client, owner: string): string {
  return `DO $$
DECLARE
  target constant text := ${client.escapeLiteral(owner)};
  item record;
BEGIN
  IF (SELECT nspowner FROM pg_namespace WHERE nspname = 'public') <> target::regrole THEN
    EXECUTE format('ALTER SCHEMA public OWNER TO %I', target);
  END IF;
  -- Tables (with their indexes and the sequences their columns own), views and free-standing sequences.
  FOR item IN
    SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                          WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END AS kind, c.oid::regclass::text AS name
      FROM pg_class c
     WHERE c.relnamespace = 'public'::regnamespace
       AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
       AND c.relowner <> target::regrole
       AND NOT EXISTS (SELECT 1 FROM pg_depend d
                        WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('e', 'a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO %I', item.kind, item.name, target);
  END LOOP;
  -- Enums, domains, ranges and free-standing composite types (a table's row type follows the table).
  FOR item IN
    SELECT t.oid::regtype::text AS name
      FROM pg_type t
     WHERE t.typnamespace = 'public'::regnamespace
       AND t.typowner <> target::regrole
       AND (t.typtype IN ('e', 'd', 'r')
            OR (t.typtype = 'c' AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c'))
       AND NOT EXISTS (SELECT 1 FROM pg_depend d
                        WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO %I', item.name, target);
  END LOOP;
  FOR item IN
    SELECT p.oid::regprocedure::text AS name
      FROM pg_proc p
     WHERE p.pronamespace = 'public'::regnamespace
       AND p.proowner <> target::regrole
       AND NOT EXISTS (SELECT 1 FROM pg_depend d
                        WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO %I', item.name, target);
  END LOOP;
END
$$`;
}
