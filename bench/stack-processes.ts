import path from 'node:path';
import { ManagedProcess, findFreePort, repoRoot, tail } from '@lazyboy/localstack';

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
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!server.running) throw new Error(`${options.name} exited during start-up:\n${tail(options.logFile)}`);
    const status = await fetch(new URL(options.readyPath, url), { signal: AbortSignal.timeout(2_000) }).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return { process: server, url };
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${options.name}'s ${options.readyPath} did not answer 200 within 60 s:\n${tail(options.logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
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
export function startWeb(apiUrl: string, logFile: string): Promise<StartedServer> {
  return startServer({
    name: 'web',
    script: 'apps/web/dist/server/main.js',
    env: { LAZYBOY_API_URL: apiUrl },
    logFile,
    readyPath: '/healthz',
    hostVariable: 'LAZYBOY_WEB_HOST',
    portVariable: 'LAZYBOY_WEB_PORT',
  });
}
