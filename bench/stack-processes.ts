import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  ManagedProcess,
  ensureAppDatabase,
  findFreePort,
  migrateDatabase,
  repoRoot,
  startScratchServices,
  waitForHttp,
} from '@lazyboy/localstack';
import { ScriptedModelServer, type Script } from '@lazyboy/model';

// The product's servers as the benches run them: each built app in its own process, as `lazyboy up`
// starts it, so a bench's own client work does not share their event loop.

export interface StartedServer {
  process: ManagedProcess;
  url: string;
}

/**
 * Starts a built server (`apps/<app>/dist/...`) on a free loopback port and resolves once `readyPath`
 * answers 200. `portVariables` name the environment variables that tell it where to listen.
 */
async function startServer(options: {
  name: string;
  script: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
  readyPath: string;
  hostVariable: string;
  portVariable: string;
  nodeArgs?: string[];
}): Promise<StartedServer> {
  const port = await findFreePort();
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' };
  delete baseEnv.LAZYBOY_APP_TOKEN;
  const server = new ManagedProcess({
    name: options.name,
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), path.join(repoRoot, options.script)],
    cwd: path.join(repoRoot, path.dirname(path.dirname(options.script))),
    env: { ...baseEnv, ...options.env, [options.hostVariable]: '127.0.0.1', [options.portVariable]: String(port) },
    logFile: options.logFile,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(server, new URL(options.readyPath, url).toString(), options.logFile);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { process: server, url };
}

/** apps/api/dist/main.js; `profileDir` writes a CPU profile of it there (open it in Chrome's DevTools). */
export function startApi(env: NodeJS.ProcessEnv, logFile: string, profileDir?: string): Promise<StartedServer> {
  return startServer({
    name: 'api',
    script: 'apps/api/dist/main.js',
    env,
    logFile,
    readyPath: '/readyz',
    hostVariable: 'LAZYBOY_API_HOST',
    portVariable: 'LAZYBOY_API_PORT',
    ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
  });
}

/** The web server (apps/web/dist/server/main.js, with the Next.js build) in front of `apiUrl`. */
export function startWeb(apiUrl: string, internalSecret: string, logFile: string): Promise<StartedServer> {
  return startServer({
    name: 'web',
    script: 'apps/web/dist/server/main.js',
    env: { LAZYBOY_API_URL: apiUrl, LAZYBOY_INTERNAL_SECRET: internalSecret },
    logFile,
    readyPath: '/healthz',
    hostVariable: 'LAZYBOY_WEB_HOST',
    portVariable: 'LAZYBOY_WEB_PORT',
  });
}

/** The whole product for a browser bench: scratch Postgres + Redis, the scripted model, the API and the web server. */
export interface ProductStack {
  api: StartedServer;
  web: StartedServer;
  model: ScriptedModelServer;
  /** Where the logs are (api.log, web.log). */
  root: string;
  /** Stops everything, newest first. */
  stop(): Promise<void>;
}

export async function startProductStack(options: {
  prefix: string;
  database: string;
  script: Script;
  /** More API environment (e.g. the first admin's credentials). */
  apiEnv?: NodeJS.ProcessEnv;
}): Promise<ProductStack> {
  const steps: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const step of steps.splice(0))
      await step().catch((error: unknown) => console.error(`cleanup: ${(error as Error).message}`));
  };
  try {
    const services = await startScratchServices(options.prefix);
    steps.unshift(() => services.stop());
    await ensureAppDatabase(services.postgres.url('postgres'), options.database, services.appRole.name);
    const databaseUrl = services.postgres.url(options.database, services.appRole);
    await migrateDatabase(databaseUrl);
    const model = await ScriptedModelServer.start(options.script);
    steps.unshift(() => model.close());
    const homes = path.join(services.root, 'homes');
    mkdirSync(homes);
    const internalSecret = randomBytes(24).toString('hex');
    const api = await startApi(
      {
        DATABASE_URL: databaseUrl,
        REDIS_URL: services.redis.url,
        LAZYBOY_VAULT_KEY: randomBytes(24).toString('hex'),
        LAZYBOY_INTERNAL_SECRET: internalSecret,
        LAZYBOY_LOG_LEVEL: 'warn',
        LAZYBOY_HOMES_DIR: homes,
        // The executors resolve their model from the environment.
        LAZYBOY_MODEL_PROVIDER: 'openai-chat',
        LAZYBOY_MODEL_BASE_URL: model.url,
        LAZYBOY_MODEL: model.model,
        OPENAI_API_KEY: 'x',
        // The benches sign their people up freely.
        LAZYBOY_SIGNUP: 'open',
        ...options.apiEnv,
      },
      path.join(services.root, 'api.log'),
    );
    steps.unshift(() => api.process.stop());
    const web = await startWeb(api.url, internalSecret, path.join(services.root, 'web.log'));
    steps.unshift(() => web.process.stop());
    // The servers run in their own process groups: a Ctrl-C here does not reach them.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop().finally(() => process.exit(130)));
    return { api, web, model, root: services.root, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
