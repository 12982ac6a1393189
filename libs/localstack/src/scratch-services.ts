import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_ROLE_NAME, ensureAppRole, type DatabaseRole } from './app-database.js';
import { findFreePort } from './ports.js';
import { startPostgres, type RunningPostgres } from './postgres.js';
import { startRedis, type RunningRedis } from './redis.js';

/** Postgres and Redis for one test run or benchmark: free ports, a temporary directory, nothing kept. */
export interface ScratchServices {
  root: string;
  postgres: RunningPostgres;
  redis: RunningRedis;
  /** The applications' login role (no superuser); make its databases with ensureAppDatabase. */
  appRole: DatabaseRole;
  /** Stops both servers and removes the directory. */
  stop(): Promise<void>;
}

export async function startScratchServices(prefix: string): Promise<ScratchServices> {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
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
  const appRole: DatabaseRole = { name: APP_ROLE_NAME, password: randomBytes(16).toString('hex') };
  await ensureAppRole(postgres.url('postgres'), appRole);
  return {
    root,
    postgres,
    redis,
    appRole,
    async stop() {
      await Promise.all([redis.process.stop(), postgres.process.stop()]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
