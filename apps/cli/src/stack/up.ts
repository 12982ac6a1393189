import { chmodSync, mkdirSync } from 'node:fs';
import {
  APP_ROLE_NAME,
  ensureAppDatabase,
  ensureAppRole,
  isAlive,
  migrateDatabase,
  startPostgres,
  startRedis,
  waitForHttp,
  type DatabaseRole,
} from '@lazyboy/localstack';
import { adminEmailSchema, mailEnvSchema, parseEnv, stackEnvSchema } from '@lazyboy/contracts';
import { z } from 'zod';
import { defaultPublicUrl, startApi, startWeb, urlHost, type AppProcessContext } from './app-processes.js';
import { stopComputerLeftovers } from './computer-leftovers.js';
import { stopLeftovers } from './down.js';
import { logFile, stackLayout } from './stack-layout.js';
import { prepareStateDir } from './state-placement.js';
import { resolvePorts } from './stack-ports.js';
import { loadOrCreateSecrets } from './stack-secrets.js';
import {
  clearStackState,
  readLastPorts,
  readStackState,
  writeLastPorts,
  writeStackState,
  type StackState,
} from './stack-state.js';
import { Supervisor } from './supervisor.js';
import { resealAndRetire } from './vault-key.js';

const DATABASE = 'lazyboy';

export class StackAlreadyRunningError extends Error {
  override readonly name = 'StackAlreadyRunningError';
}

type Print = (line: string) => void;

/**
 * `lazyboy up`: Postgres, Redis, the API and the web app as plain processes, started in that order,
 * with data under the data directory (the API starts a worker per computer when an agent needs one). Runs until SIGINT/SIGTERM, restarting a component
 * that exits on its own (until one crash-loops), then stops everything newest first and resolves with
 * the exit code.
 */
export async function up(env: Record<string, string | undefined>, print: Print = console.log): Promise<number> {
  const config = parseEnv(stackEnvSchema, env);
  const adminEmail = parseEnv(z.object({ LAZYBOY_ADMIN_EMAIL: adminEmailSchema }), env).LAZYBOY_ADMIN_EMAIL;
  const layout = stackLayout(config);
  // Postgres, Redis and the desktops run as their own system users and must reach their directories:
  // in the data directory when they can walk to it, else in the state directory (state-placement.ts).
  prepareStateDir(layout.dataDir, { stateDir: layout.stateDir, relocated: layout.stateRelocated });
  if (layout.stateRelocated) print(`the data directory is private: Postgres, Redis and homes live in ${layout.stateDir}`);
  mkdirSync(layout.logsDir, { recursive: true, mode: 0o700 });
  // Each log is opened by whoever starts the program, so the servers' own users need no way in.
  chmodSync(layout.logsDir, 0o700);
  mkdirSync(layout.homesDir, { recursive: true, mode: 0o755 });

  const previous = readStackState(layout.stateFile);
  if (previous && isAlive(previous.supervisorPid) && previous.supervisorPid !== process.pid) {
    throw new StackAlreadyRunningError(
      `LazyBoy is already running from ${layout.dataDir} (pid ${previous.supervisorPid}); run \`lazyboy down\` first`,
    );
  }
  await stopLeftovers(previous, layout, print);

  const secrets = loadOrCreateSecrets(layout.secretsFile, env);
  const appRole: DatabaseRole = { name: APP_ROLE_NAME, password: secrets.databasePassword };
  const ports = await resolvePorts(config, readLastPorts(layout.portsFile));
  const publicUrl = config.LAZYBOY_PUBLIC_URL ?? defaultPublicUrl(config.LAZYBOY_HOST, ports.web);
  // The API would refuse these later, restarted again and again: said once here, before anything starts.
  parseEnv(mailEnvSchema, { ...env, LAZYBOY_PUBLIC_URL: publicUrl });
  writeLastPorts(layout.portsFile, ports);
  const state: StackState = {
    supervisorPid: process.pid,
    startedAt: new Date().toISOString(),
    ports,
    webHost: config.LAZYBOY_HOST,
    adminEmail,
    components: [],
  };
  writeStackState(layout.stateFile, state);
  const supervisor = new Supervisor({
    print,
    onChange: (running) => writeStackState(layout.stateFile, { ...state, components: [...running] }),
  });
  const stopAll = async () => {
    await supervisor.stopAll();
    // The API stops its workers, and they their desktops; what outlived them (a worker the API had no time
    // to stop, a desktop whose worker was killed) is ended here, so none outlives the stack.
    await stopComputerLeftovers(layout, print);
    clearStackState(layout.stateFile);
  };

  let signalled: NodeJS.Signals | undefined;
  let resolveSignalled: () => void = () => undefined;
  const signalReceived = new Promise<undefined>((resolve) => (resolveSignalled = () => resolve(undefined)));
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      // A second Ctrl-C: no more waiting for clean shutdowns.
      const current = readStackState(layout.stateFile);
      for (const { pid } of current?.components ?? []) process.kill(-pid, 'SIGKILL');
      return;
    }
    signalled = signal;
    resolveSignalled();
    print(`\n${signal}: stopping LazyBoy…`);
    // Stop now rather than at the next step, so that a start in progress fails fast.
    void supervisor.stopAll();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    print(`starting Postgres on 127.0.0.1:${ports.postgres} and Redis on 127.0.0.1:${ports.redis}…`);
    let databaseUrl = '';
    let redisUrl = '';
    await Promise.all([
      supervisor.start({
        name: 'postgres',
        start: async () => {
          const pg = await startPostgres({
            dataDir: layout.postgresDir,
            port: ports.postgres,
            password: secrets.postgresPassword,
            logFile: logFile(layout, 'postgres'),
          });
          // The superuser only sets up the API's own role and hands it the database (a database an older
          // version migrated as the superuser included); migrations and the API then connect as that role.
          try {
            await ensureAppRole(pg.url('postgres'), appRole);
            await ensureAppDatabase(pg.url('postgres'), DATABASE, appRole.name);
          } catch (error) {
            await pg.process.stop();
            throw error;
          }
          databaseUrl = pg.url(DATABASE, appRole);
          return pg.process;
        },
      }),
      supervisor.start({
        name: 'redis',
        start: async () => {
          const redis = await startRedis({
            dataDir: layout.redisDir,
            port: ports.redis,
            password: secrets.redisPassword,
            logFile: logFile(layout, 'redis'),
            persistent: true,
          });
          redisUrl = redis.url;
          return redis.process;
        },
      }),
    ]);
    throwIfSignalled(signalled);
    print('applying database migrations…');
    await migrateDatabase(databaseUrl);
    throwIfSignalled(signalled);

    const ctx: AppProcessContext = {
      layout,
      ports,
      secrets,
      databaseUrl,
      redisUrl,
      webHost: config.LAZYBOY_HOST,
      adminEmail,
      publicUrl,
    };
    print('starting the API and the web app…');
    await Promise.all([
      // Read again at every start: `lazyboy vault rotate-key` restarts the API with a new vault key.
      supervisor.start({ name: 'api', start: () => startApi({ ...ctx, secrets: loadOrCreateSecrets(layout.secretsFile, env) }) }),
      supervisor.start({ name: 'web', start: () => startWeb(ctx) }),
    ]);
    throwIfSignalled(signalled);
    // Everything answers; the API must also reach Postgres and Redis before the stack counts as up.
    await waitForHttp(undefined, `http://127.0.0.1:${ports.api}/readyz`, logFile(layout, 'api'), 30_000);
    throwIfSignalled(signalled);
    if (secrets.oldVaultKeys.length > 0) {
      // A rotation made while LazyBoy was stopped: the API opens both keys, and now re-seals under the new one.
      const target = {
        apiUrl: `http://127.0.0.1:${ports.api}`,
        adminEmail,
        appToken: secrets.appToken,
        secretsFile: layout.secretsFile,
      };
      await resealAndRetire({ ...target, oldKeys: secrets.oldVaultKeys }, print);
    }

    print('');
    print(`LazyBoy is up: http://${urlHost(config.LAZYBOY_HOST)}:${ports.web}`);
    print(`  sign in as ${adminEmail} with the token ${secrets.appToken}`);
    const moved = layout.stateRelocated ? ` (databases and homes in ${layout.stateDir})` : '';
    print(`  data in ${layout.dataDir}${moved}, logs in ${layout.logsDir}`);
    print('  press Ctrl-C to stop');

    const crash = await Promise.race([supervisor.crashLoop, signalReceived]);
    await stopAll();
    if (crash && !signalled) {
      print(`${crash.message}; stopped LazyBoy (logs in ${layout.logsDir})`);
      return 1;
    }
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
