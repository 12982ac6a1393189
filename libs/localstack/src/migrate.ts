import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { childEnv } from './child-env.js';
import { repoRoot } from './repo-paths.js';

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

/** What `prisma migrate deploy` prints once every migration is applied and recorded. */
const DEPLOYED = /All migrations have been successfully applied|No pending migrations to apply/;

/**
 * Applies every pending migration with `prisma migrate deploy`. The CLI finishes its work in a second or
 * two but then lingers ~10 s on engine timers: once it has reported success, it is stopped rather than
 * waited for. Skipped entirely when nothing is pending.
 */
export async function migrateDatabase(databaseUrl: string): Promise<void> {
  if ((await pendingMigrations(databaseUrl)).length === 0) return;
  const prisma = spawn(path.join(repoRoot, 'node_modules', '.bin', 'prisma'), ['migrate', 'deploy'], {
    cwd: repoRoot,
    env: childEnv('migrations', { DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      prisma.kill('SIGKILL');
      reject(new Error(`prisma migrate deploy did not finish in 120 s:\n${output}`));
    }, 120_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (DEPLOYED.test(output)) {
        clearTimeout(timer);
        prisma.kill('SIGTERM');
        resolve();
      }
    };
    prisma.stdout.on('data', collect);
    prisma.stderr.on('data', collect);
    prisma.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    prisma.once('exit', (code) => {
      clearTimeout(timer);
      if (DEPLOYED.test(output)) resolve();
      else reject(new Error(`prisma migrate deploy failed (exit ${code}):\n${output}`));
    });
  });
  const left = await pendingMigrations(databaseUrl);
  if (left.length > 0) throw new Error(`migrations still pending after deploy: ${left.join(', ')}`);
}
