import { mkdirSync, chmodSync } from 'node:fs';
import { type ManagedProcess, ensureDatabase, isAlive, migrateDatabase, startPostgres, startRedis } from '@lazyboy/localstack';
import { adminEmailSchema, parseEnv, stackEnvSchema } from '@lazyboy/contracts';
import { z } from 'zod';
import { startApi, startWeb, startWorker, waitForHttp, type AppProcessContext } from './app-processes.js';
import { stopLeftovers } from './down.js';
import { logFile, stackLayout } from './stack-layout.js';
import { resolvePorts } from './stack-ports.js';
import { loadOrCreateSecrets } from './stack-secrets.js';
import {
  clearStackState,
  readLastPorts,
  readStackState,
  writeLastPorts,
  writeStackState,
  type ComponentName,
  type StackState,
} from './stack-state.js';

const DATABASE = 'lazyboy';

export class StackAlreadyRunningError extends Error {
  override readonly name = 'StackAlreadyRunningError';
}

type Print = (line: string) => void;

/**
 * `lazyboy up`: Postgres, Redis, the API, a worker and the web app as plain processes, started in
 * that order, with data under the data directory. Runs until SIGINT/SIGTERM (or a component dies),
 * then stops everything it started, newest first, and resolves with the exit code.
 */
export async function up(env: Record<string, string | undefined>, print: Print = console.log): Promise<number> {
  const config = parseEnv(stackEnvSchema, env);
  const adminEmail = parseEnv(z.object({ LAZYBOY_ADMIN_EMAIL: adminEmailSchema }), env).LAZYBOY_ADMIN_EMAIL;
  const layout = stackLayout(config.LAZYBOY_DATA_DIR);
  mkdirSync(layout.logsDir, { recursive: true });
  mkdirSync(layout.homesDir, { recursive: true });
  // Postgres and Redis run as their own system users and must be able to reach their directories.
  chmodSync(layout.dataDir, 0o755);

  const previous = readStackState(layout.stateFile);
  if (previous && isAlive(previous.supervisorPid) && previous.supervisorPid !== process.pid) {
    throw new StackAlreadyRunningError(
      `LazyBoy is already running from ${layout.dataDir} (pid ${previous.supervisorPid}); run \`lazyboy down\` first`,
    );
  }
  if (previous) await stopLeftovers(previous, print);

  const secrets = loadOrCreateSecrets(layout.secretsFile, env);
  const ports = await resolvePorts(config, readLastPorts(layout.portsFile));
  writeLastPorts(layout.portsFile, ports);
  const state: StackState = {
    supervisorPid: process.pid,
    startedAt: new Date().toISOString(),
    ports,
    webHost: config.LAZYBOY_HOST,
    components: [],
  };
  const running: ManagedProcess[] = [];
  const track = (name: ComponentName, proc: ManagedProcess) => {
    running.push(proc);
    state.components.push({ name, pid: proc.pid });
    writeStackState(layout.stateFile, state);
  };

  // Not memoised: a component that finishes starting after a first call is stopped by the next one.
  // Stopping a stopped process is a no-op.
  const stopAll = async () => {
    for (const proc of [...running].reverse()) await proc.stop();
    clearStackState(layout.stateFile);
  };

  let signalled: NodeJS.Signals | undefined;
  let resolveSignalled: () => void = () => undefined;
  const signalReceived = new Promise<undefined>((resolve) => (resolveSignalled = () => resolve(undefined)));
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      // A second Ctrl-C: no more waiting for clean shutdowns.
      for (const proc of running) if (proc.running) process.kill(-proc.pid, 'SIGKILL');
      return;
    }
    signalled = signal;
    resolveSignalled();
    print(`\n${signal}: stopping LazyBoy…`);
    void stopAll();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    writeStackState(layout.stateFile, state);
    print(`starting Postgres on 127.0.0.1:${ports.postgres} and Redis on 127.0.0.1:${ports.redis}…`);
    const [postgres, redis] = await Promise.all([
      startPostgres({
        dataDir: layout.postgresDir,
        port: ports.postgres,
        password: secrets.postgresPassword,
        logFile: logFile(layout, 'postgres'),
      }).then((pg) => (track('postgres', pg.process), pg)),
      startRedis({
        dataDir: layout.redisDir,
        port: ports.redis,
        password: secrets.redisPassword,
        logFile: logFile(layout, 'redis'),
        persistent: true,
      }).then((r) => (track('redis', r.process), r)),
    ]);
    throwIfSignalled(signalled);
    await ensureDatabase(postgres.url('postgres'), DATABASE);
    print('applying database migrations…');
    await migrateDatabase(postgres.url(DATABASE));
    throwIfSignalled(signalled);

    const ctx: AppProcessContext = {
      layout,
      ports,
      secrets,
      databaseUrl: postgres.url(DATABASE),
      redisUrl: redis.url,
      webHost: config.LAZYBOY_HOST,
      adminEmail,
    };
    print('starting the API, the worker and the web app…');
    const api = startApi(ctx);
    track('api', api);
    const worker = startWorker(ctx);
    track('worker', worker);
    const web = startWeb(ctx);
    track('web', web);
    await Promise.all([
      waitForHttp(api, `http://127.0.0.1:${ports.api}/readyz`, logFile(layout, 'api')),
      waitForHttp(worker, `http://127.0.0.1:${ports.worker}/healthz`, logFile(layout, 'worker')),
      waitForHttp(web, `http://${urlHost(config.LAZYBOY_HOST)}:${ports.web}/healthz`, logFile(layout, 'web')),
    ]);
    throwIfSignalled(signalled);

    const displayHost = config.LAZYBOY_HOST === '0.0.0.0' ? '127.0.0.1' : urlHost(config.LAZYBOY_HOST);
    print('');
    print(`LazyBoy is up: http://${displayHost}:${ports.web}`);
    print(`  sign in as ${adminEmail} with the token ${secrets.appToken}`);
    print(`  data in ${layout.dataDir}, logs in ${layout.logsDir}`);
    print('  press Ctrl-C to stop');

    // Run until a signal, or until a component dies on its own (then stop the rest and fail).
    const died = await Promise.race([...running.map((proc) => proc.exited.then(() => proc)), signalReceived]);
    if (died && !signalled) {
      print(`${died.name} exited unexpectedly (see ${logFile(layout, died.name)}); stopping the rest`);
      await stopAll();
      return 1;
    }
    await stopAll();
    print('LazyBoy stopped; data kept.');
    return 0;
  } catch (error) {
    await stopAll();
    // After Ctrl-C, whatever failed mid-start failed because it was being stopped.
    if (signalled) {
      print('LazyBoy stopped; data kept.');
      return 0;
    }
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function throwIfSignalled(signal: NodeJS.Signals | undefined): void {
  if (signal) throw new Error(`interrupted by ${signal}`);
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
