import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { runCli, stackEnv, startUp, type RunningUp } from './stack-run.js';
import { sleep } from '../support/index.js';

interface Proc {
  pid: number;
  pgid: number;
  args: string;
}

function processTable(): Proc[] {
  return execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [, pid, pgid, args] = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line) ?? [];
      return { pid: Number(pid), pgid: Number(pgid), args: args ?? '' };
    });
}

/** Polls the API's /readyz until it answers `status` (or 20 s pass), returning the last answer. */
async function readyzUntil(port: number, status: number): Promise<{ status: number; body: Record<string, unknown> }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    // A kept-alive connection the server closes just as it is reused fails the fetch: ask again.
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch((error: unknown) => {
      if (Date.now() > deadline) throw error;
      return undefined;
    });
    if (res) {
      const body = (await res.json()) as Record<string, unknown>;
      if (res.status === status || Date.now() > deadline) return { status: res.status, body };
    }
    await sleep(50);
  }
}

/** The environment a process started with, as NAME=value entries. */
function environOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
}

const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8);

/** Who the API connects to Postgres as, and whether anything of its database belongs to someone else. */
async function apiDatabaseRole(databaseUrl: string): Promise<{ user: string; superuser: boolean; notOwned: string[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const me = await client.query<{ user: string; superuser: boolean }>(
      'SELECT current_user AS user, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user',
    );
    const notOwned = await client.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class c
        WHERE relnamespace = 'public'::regnamespace AND relowner <> current_user::regrole
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')`,
    );
    return { ...me.rows[0]!, notOwned: notOwned.rows.map((row) => row.name) };
  } finally {
    await client.end();
  }
}

describe('lazyboy up (the embedded local stack)', () => {
  it('starts every component with least privilege, survives Redis restarting, and leaves no process behind after Ctrl-C', async () => {
    const { dataDir, env } = stackEnv({
      // Provider keys exported in the shell that runs `up`: only the API may see them.
      XAI_API_KEY: `xai-planted-${randomUUID()}`,
      OPENAI_API_KEY: `openai-planted-${randomUUID()}`,
    });
    let up: RunningUp | undefined;
    try {
      up = await startUp(env);
      const running = up;
      const output = up.output;
      const webUrl = /LazyBoy is up: (http:\/\/\S+)/.exec(output())?.[1] ?? '';
      expect(output()).toMatch(/sign in as admin@lazyboy\.local with the token \S{32,}/);

      const state = up.state();
      expect(state.components.map((c) => c.name).sort()).toEqual(['api', 'postgres', 'redis', 'web']);

      const readyz = await fetch(`http://127.0.0.1:${state.ports.api}/readyz`);
      expect(readyz.status).toBe(200);
      expect(await readyz.json()).toMatchObject({ status: 'ready', failing: [] });
      // The web app answers in Traditional Chinese, and the API answers through it (one origin for the browser).
      const login = await fetch(`${webUrl}/login`);
      expect(login.status).toBe(200);
      expect(await login.text()).toContain('<html lang="zh-TW"');
      const me = await fetch(`${webUrl}/api/auth/me`);
      expect(me.status).toBe(401);
      expect(await me.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });

      // Each component's environment holds only what it needs: the model keys reach the API alone, and no
      // secret of the stack reaches Postgres, Redis or the web server. The API connects as its own role.
      const secrets = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
      const { postgresPassword, databasePassword, vaultKey, appToken, redisPassword, internalSecret } = secrets;
      const planted = [env.XAI_API_KEY!, env.OPENAI_API_KEY!];
      const leaderOf = (name: string) => state.components.find((c) => c.name === name)!.pid;
      const carrying = (name: string, values: string[]) =>
        environOf(leaderOf(name)).filter((entry) => values.some((value) => entry.includes(value)));
      const stackSecrets = [postgresPassword!, databasePassword!, vaultKey!, appToken!, redisPassword!, internalSecret!];
      expect({
        postgres: carrying('postgres', [...planted, ...stackSecrets]),
        redis: carrying('redis', [...planted, ...stackSecrets]),
        web: carrying('web', [...planted, postgresPassword!, databasePassword!, vaultKey!, appToken!, redisPassword!]),
        apiSuperuserPassword: carrying('api', [postgresPassword!]),
        postgresLazyBoyVariables: environOf(leaderOf('postgres')).filter((entry) => entry.startsWith('LAZYBOY_')),
      }).toEqual({ postgres: [], redis: [], web: [], apiSuperuserPassword: [], postgresLazyBoyVariables: [] });
      const apiEnv = environOf(leaderOf('api'));
      expect(apiEnv).toEqual(expect.arrayContaining([`XAI_API_KEY=${env.XAI_API_KEY}`, `OPENAI_API_KEY=${env.OPENAI_API_KEY}`]));
      const databaseUrl = apiEnv.find((entry) => entry.startsWith('DATABASE_URL='))!.slice('DATABASE_URL='.length);
      expect(await apiDatabaseRole(databaseUrl)).toEqual({ user: 'lazyboy', superuser: false, notOwned: [] });
      // Secrets and logs are the owner's alone.
      const logsDir = path.join(dataDir, 'logs');
      expect(modeOf(path.join(dataDir, 'secrets.json'))).toBe('600');
      expect(modeOf(logsDir)).toBe('700');
      const logs = readdirSync(logsDir).filter((name) => name.endsWith('.log'));
      expect(logs).toEqual(expect.arrayContaining(['api.log', 'postgres.log', 'redis.log', 'web.log']));
      expect(logs.filter((name) => modeOf(path.join(logsDir, name)) !== '600')).toEqual([]);

      const status = runCli(['status'], env);
      expect(status.code).toBe(0);
      expect(status.out).toMatch(/api\s+pid \d+/);

      // Redis going away turns /readyz into a 503 naming it; the supervisor starts it again and the
      // same API process reports ready again.
      const pidOf = (name: string) => running.state().components.find((c) => c.name === name)?.pid;
      const apiPid = pidOf('api');
      const redisPid = pidOf('redis')!;
      process.kill(-redisPid, 'SIGTERM');
      const down = await readyzUntil(state.ports.api!, 503);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ failing: ['redis'], error: { code: 'NOT_READY' } });
      const back = await readyzUntil(state.ports.api!, 200);
      expect(back.status).toBe(200);
      expect(output()).toMatch(/redis exited \(.*\); restarting it in/);
      expect(pidOf('redis')).not.toBe(redisPid);
      expect(pidOf('api')).toBe(apiPid);

      // Everything the stack runs: the supervisor, the components' process groups, and anything
      // else that names the data directory.
      const current = up.state();
      const groups = new Set([up.process.pid!, redisPid, ...current.components.map((c) => c.pid)]);
      const ours = processTable().filter((p) => groups.has(p.pgid) || p.args.includes(dataDir));
      // At least the supervisor and every component's leader (Postgres alone runs several processes).
      const leaders = [up.process.pid!, ...current.components.map((c) => c.pid)];
      const missing = leaders.filter((pid) => !ours.some((p) => p.pid === pid));
      const shown = output();
      expect({ missing, components: current.components, output: shown }).toEqual({
        missing: [],
        components: current.components,
        output: shown,
      });

      process.kill(-up.process.pid!, 'SIGINT');
      expect(await up.exited).toBe(0);

      const left = processTable().filter(
        (p) => groups.has(p.pgid) || ours.some((o) => o.pid === p.pid) || p.args.includes(dataDir),
      );
      expect(left).toEqual([]);
      expect(output()).toContain('LazyBoy stopped; data kept.');
      expect(existsSync(path.join(dataDir, 'stack.json'))).toBe(false);
      expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
      expect(runCli(['status'], env).code).toBe(3);
    } finally {
      if (up && up.process.exitCode === null && up.process.signalCode === null) {
        process.kill(-up.process.pid!, 'SIGINT');
        await up.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
