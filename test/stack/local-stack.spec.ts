import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '@lazyboy/localstack';

const CLI = path.join(repoRoot, 'apps/cli/dist/main.js');
const BUILT = [CLI, 'apps/api/dist/main.js', 'apps/worker/dist/main.js', 'apps/web/.next/BUILD_ID'].map((f) =>
  path.resolve(repoRoot, f),
);

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
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status === status || Date.now() > deadline) return { status: res.status, body };
    await new Promise((r) => setTimeout(r, 50));
  }
}

function runCli(args: string[], env: NodeJS.ProcessEnv): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' }) };
  } catch (error) {
    const e = error as { status: number; stdout: string };
    return { code: e.status, out: e.stdout };
  }
}

describe('lazyboy up (the embedded local stack)', () => {
  it('starts every component, survives Redis restarting, and leaves no process behind after Ctrl-C', async () => {
    const missing = BUILT.filter((f) => !existsSync(f));
    if (missing.length > 0) throw new Error(`build first (./lazyboy test does): missing ${missing.join(', ')}`);

    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-stack-'));
    chmodSync(dataDir, 0o755);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      LAZYBOY_DATA_DIR: dataDir,
      LAZYBOY_WEB_PORT: '0',
      LAZYBOY_API_PORT: '0',
      LAZYBOY_PG_PORT: '0',
      LAZYBOY_REDIS_PORT: '0',
      LAZYBOY_APP_TOKEN: '',
    };
    // Its own process group, as a terminal gives a foreground job: Ctrl-C signals that whole group.
    const up = spawn(process.execPath, [CLI, 'up'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    up.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    up.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => up.once('exit', (code) => resolve(code)));

    try {
      const deadline = Date.now() + 120_000;
      while (!/LazyBoy is up: (http:\/\/\S+)/.test(output)) {
        if (up.exitCode !== null || Date.now() > deadline) throw new Error(`up did not come up:\n${output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const webUrl = /LazyBoy is up: (http:\/\/\S+)/.exec(output)?.[1] ?? '';
      expect(output).toMatch(/sign in as admin@lazyboy\.local with the token \S{32,}/);

      const readState = () =>
        JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8')) as {
          ports: Record<string, number>;
          components: Array<{ name: string; pid: number }>;
        };
      const state = readState();
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

      const status = runCli(['status'], env);
      expect(status.code).toBe(0);
      expect(status.out).toMatch(/api\s+pid \d+/);

      // Redis going away turns /readyz into a 503 naming it; the supervisor starts it again and the
      // same API process reports ready again.
      const pidOf = (name: string) => readState().components.find((c) => c.name === name)?.pid;
      const apiPid = pidOf('api');
      const redisPid = pidOf('redis')!;
      process.kill(-redisPid, 'SIGTERM');
      const down = await readyzUntil(state.ports.api!, 503);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ failing: ['redis'], error: { code: 'NOT_READY' } });
      const back = await readyzUntil(state.ports.api!, 200);
      expect(back.status).toBe(200);
      expect(output).toMatch(/redis exited \(.*\); restarting it in/);
      expect(pidOf('redis')).not.toBe(redisPid);
      expect(pidOf('api')).toBe(apiPid);

      // Everything the stack runs: the supervisor, the components' process groups, and anything
      // else that names the data directory.
      const current = readState();
      const groups = new Set([up.pid!, redisPid, ...current.components.map((c) => c.pid)]);
      const ours = processTable().filter((p) => groups.has(p.pgid) || p.args.includes(dataDir));
      // At least the supervisor and every component's leader (Postgres alone runs several processes).
      const leaders = [up.pid!, ...current.components.map((c) => c.pid)];
      const missing = leaders.filter((pid) => !ours.some((p) => p.pid === pid));
      expect({ missing, components: current.components, output }).toEqual({
        missing: [],
        components: current.components,
        output,
      });

      process.kill(-up.pid!, 'SIGINT');
      expect(await exited).toBe(0);

      const left = processTable().filter(
        (p) => groups.has(p.pgid) || ours.some((o) => o.pid === p.pid) || p.args.includes(dataDir),
      );
      expect(left).toEqual([]);
      expect(output).toContain('LazyBoy stopped; data kept.');
      expect(existsSync(path.join(dataDir, 'stack.json'))).toBe(false);
      expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
      expect(runCli(['status'], env).code).toBe(3);
    } finally {
      if (up.exitCode === null) {
        process.kill(-up.pid!, 'SIGINT');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
