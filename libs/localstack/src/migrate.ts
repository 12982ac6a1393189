import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './repo-paths.js';

const execFileAsync = promisify(execFile);

/** Applies every pending migration in prisma/migrations to the database at `databaseUrl`. */
export async function migrateDatabase(databaseUrl: string): Promise<void> {
  const prisma = path.join(repoRoot, 'node_modules', '.bin', 'prisma');
  try {
    await execFileAsync(prisma, ['migrate', 'deploy'], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      timeout: 120_000,
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`prisma migrate deploy failed: ${e.stderr || e.stdout || e.message}`);
  }
}
