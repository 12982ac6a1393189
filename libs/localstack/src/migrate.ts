import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { repoRoot } from './repo-paths.js';

const execFileAsync = promisify(execFile);
const MIGRATIONS_DIR = path.join(repoRoot, 'prisma', 'migrations');

/** Migrations in prisma/migrations that the database has not finished applying. */
export async function pendingMigrations(databaseUrl: string): Promise<string[]> {
  const all = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const table = await client.query(`SELECT to_regclass('"_prisma_migrations"') AS name`);
    if (!table.rows[0]?.name) return all;
    const done = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Set(done.rows.map((row) => row.migration_name));
    return all.filter((name) => !applied.has(name));
  } finally {
    await client.end();
  }
}

/**
 * Applies every pending migration with `prisma migrate deploy`. Skips the CLI (≈10 s, most of it the
 * engine winding down) when nothing is pending.
 */
export async function migrateDatabase(databaseUrl: string): Promise<void> {
  if ((await pendingMigrations(databaseUrl)).length === 0) return;
  const prisma = path.join(repoRoot, 'node_modules', '.bin', 'prisma');
  try {
    await execFileAsync(prisma, ['migrate', 'deploy'], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      timeout: 120_000,
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`prisma migrate deploy failed: ${e.stderr || e.stdout || e.message}`, { cause: error });
  }
}
