import { ConfigError, egressPolicyOf, parseEnv, workerEnvSchema } from '@lazyboy/contracts';
import { ScreenManager } from '@lazyboy/desktop';
import { ControlServer } from './control-server.js';
import { defaultDesktopPaths } from './desktop-paths.js';

/** How long stopping may wait for the control server before the desktop is stopped regardless. */
const SERVER_CLOSE_MS = 3_000;

async function main(): Promise<void> {
  const config = parseEnv(workerEnvSchema, process.env);
  const screens = new ScreenManager({
    computerId: config.LAZYBOY_COMPUTER_ID,
    ...defaultDesktopPaths(config.LAZYBOY_COMPUTER_ID, config.LAZYBOY_COMPUTER_HOME),
    displayBase: config.LAZYBOY_DISPLAY_BASE,
    screenLimit: config.TEAM_SCREEN_LIMIT,
    session: config.LAZYBOY_DESKTOP_SESSION,
    egressPolicy: egressPolicyOf(config),
  });
  const server = new ControlServer(config, { screens });
  const address = await server.listen();
  console.log(`lazyboy-worker ${config.LAZYBOY_COMPUTER_ID} listening on http://${address.address}:${address.port}`);
  const shutdown = (signal: NodeJS.Signals) => {
    console.log(`lazyboy-worker: ${signal}, stopping`);
    // Closing the server also ends the shells and drops the CDP clients; it gets a bounded time, so that a
    // client a frozen (suspended) browser never answers cannot keep the desktop from being stopped.
    void settledWithin(server.close(), SERVER_CLOSE_MS)
      // The desktop goes with the worker, suspended or not (dispose continues it before it stops it): a
      // worker that leaves Xvfb and Chromium running leaks a computer. And what it kept in /tmp: a worker
      // starts for every boot, its runtime folders would pile up.
      .then(() => screens.dispose())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error('lazyboy-worker: stopping failed', error);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

/** Resolves once `task` settles (its failure logged) or `ms` have passed, whichever is first. */
function settledWithin(task: Promise<unknown>, ms: number): Promise<void> {
  const logged = task.then(
    () => undefined,
    (error: unknown) => console.error('lazyboy-worker: closing the control server failed', error),
  );
  return Promise.race([logged, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
