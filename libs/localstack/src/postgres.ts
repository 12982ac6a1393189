import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { DatabaseRole } from './app-database.js';
import { childEnv } from './child-env.js';
import { ManagedProcess } from './managed-process.js';
import { chownTree, serviceUser } from './service-user.js';

const execFileAsync = promisify(execFile);
export const POSTGRES_BIN = process.env.LAZYBOY_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PostgresOptions {
  /** The cluster directory (created by initdb on first start). */
  dataDir: string;
  port: number;
  /** Superuser password, set at initdb; the cluster only accepts password logins. */
  password: string;
  logFile: string;
  /** Trade durability for speed: throwaway test clusters only. */
  ephemeral?: boolean;
}

export interface RunningPostgres {
  process: ManagedProcess;
  port: number;
  /** Connection URL for `database`, as `role` (by default the superuser, which only the set-up should use). */
  url(database: string, role?: DatabaseRole): string;
}

/** Creates the cluster on first use; a cluster that exists is left as it is. */
export async function initPostgresCluster(dataDir: string, password: string): Promise<void> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  const user = serviceUser('postgres');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chownTree(dataDir, user);
  const pwFile = path.join(dataDir, '..', `.pgpass-init-${process.pid}`);
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  chownTree(pwFile, user);
  try {
    await execFileAsync(
      path.join(POSTGRES_BIN, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '--auth=scram-sha-256',
        `--pwfile=${pwFile}`,
        '-E',
        'UTF8',
        '--locale=C.UTF-8',
        '--no-sync',
      ],
      // Its own directory as the working one: initdb changes back to where it started, and the postgres
      // user may not enter the directory `up` was started from (a checkout under /root).
      { uid: user?.uid, gid: user?.gid, cwd: dataDir, env: childEnv('postgres', { LC_ALL: 'C.UTF-8' }) },
    );
  } finally {
    rmSync(pwFile, { force: true });
  }
}

export async function startPostgres(options: PostgresOptions): Promise<RunningPostgres> {
  await initPostgresCluster(options.dataDir, options.password);
  const user = serviceUser('postgres');
  chownTree(options.dataDir, user);
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const settings = [
    `port=${options.port}`,
    'listen_addresses=127.0.0.1',
    // TCP only: no socket file to place, clean up or share between clusters.
    'unix_socket_directories=',
    ...(options.ephemeral ? ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'] : []),
  ];
  const server = new ManagedProcess({
    name: 'postgres',
    command: path.join(POSTGRES_BIN, 'postgres'),
    args: ['-D', options.dataDir, ...settings.flatMap((s) => ['-c', s])],
    cwd: options.dataDir,
    env: childEnv('postgres'),
    logFile: options.logFile,
    user,
    // SIGINT is Postgres's "fast" shutdown: roll back open transactions and stop now.
    stopSignal: 'SIGINT',
  });
  const url = (database: string, role: DatabaseRole = { name: 'postgres', password: options.password }) =>
    `postgresql://${encodeURIComponent(role.name)}:${encodeURIComponent(role.password)}@127.0.0.1:${options.port}/${database}`;
  try {
    await waitForPostgres(url('postgres'), server, options.logFile);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { process: server, port: options.port, url };
}

async function waitForPostgres(url: string, proc: ManagedProcess, logFile: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running) throw new Error(`postgres exited during start-up:\n${tail(logFile)}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections in ${timeoutMs} ms:\n${tail(logFile)}`);
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
