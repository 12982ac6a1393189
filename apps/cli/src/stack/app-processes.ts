import { createRequire } from 'node:module';
import path from 'node:path';
import { ManagedProcess, repoRoot, tail, waitForPort } from '@lazyboy/localstack';
import { logFile, type StackLayout } from './stack-layout.js';
import type { StackSecrets } from './stack-secrets.js';
import type { StackPorts } from './stack-state.js';

export interface AppProcessContext {
  layout: StackLayout;
  ports: StackPorts;
  secrets: StackSecrets;
  databaseUrl: string;
  redisUrl: string;
  webHost: string;
  adminEmail: string;
}

/** Environment every app process starts from: the caller's, minus the stack's own settings. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' };
  delete env.LAZYBOY_APP_TOKEN;
  return env;
}

/** One of the stack's Node programs, run from its build in apps/<name>/dist. */
function startNodeApp(ctx: AppProcessContext, name: 'api' | 'worker', env: NodeJS.ProcessEnv): ManagedProcess {
  return new ManagedProcess({
    name,
    command: process.execPath,
    args: [path.join(repoRoot, `apps/${name}/dist/main.js`)],
    cwd: repoRoot,
    env: { ...baseEnv(), ...env },
    logFile: logFile(ctx.layout, name),
  });
}

export function startApi(ctx: AppProcessContext): ManagedProcess {
  return startNodeApp(ctx, 'api', {
    DATABASE_URL: ctx.databaseUrl,
    REDIS_URL: ctx.redisUrl,
    LAZYBOY_API_HOST: '127.0.0.1',
    LAZYBOY_API_PORT: String(ctx.ports.api),
    LAZYBOY_APP_TOKEN: ctx.secrets.appToken,
    LAZYBOY_ADMIN_EMAIL: ctx.adminEmail,
  });
}

export function startWorker(ctx: AppProcessContext): ManagedProcess {
  return startNodeApp(ctx, 'worker', {
    LAZYBOY_WORKER_HOST: '127.0.0.1',
    LAZYBOY_WORKER_PORT: String(ctx.ports.worker),
    LAZYBOY_CONTROL_TOKEN: ctx.secrets.controlToken,
    LAZYBOY_COMPUTER_ID: 'local',
  });
}

export function startWeb(ctx: AppProcessContext): ManagedProcess {
  const webDir = path.join(repoRoot, 'apps/web');
  const nextBin = createRequire(path.join(webDir, 'package.json')).resolve('next/dist/bin/next');
  return new ManagedProcess({
    name: 'web',
    command: process.execPath,
    args: [nextBin, 'start', '--port', String(ctx.ports.web), '--hostname', ctx.webHost],
    cwd: webDir,
    env: { ...baseEnv(), LAZYBOY_API_URL: `http://127.0.0.1:${ctx.ports.api}` },
    logFile: logFile(ctx.layout, 'web'),
  });
}

/**
 * Resolves once GET `url` answers `expectStatus`; fails early, with the log's tail, if the process exits.
 */
export async function waitForHttp(
  proc: ManagedProcess,
  url: string,
  log: string,
  timeoutMs = 60_000,
  expectStatus = 200,
): Promise<void> {
  const { hostname, port } = new URL(url);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running) throw new Error(`${proc.name} exited during start-up:\n${tail(log)}`);
    try {
      await waitForPort(Number(port), hostname, 200);
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status === expectStatus) return;
    } catch {
      // not yet listening
    }
    if (Date.now() > deadline) throw new Error(`${proc.name} did not answer ${url} within ${timeoutMs} ms:\n${tail(log)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
