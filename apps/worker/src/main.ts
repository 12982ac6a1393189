import { ConfigError, egressPolicyOf, parseEnv, workerEnvSchema } from '@lazyboy/contracts';
import { DisplayManager } from '@lazyboy/desktop';
import { ControlServer } from './control-server.js';
import { defaultDesktopPaths } from './desktop-paths.js';

async function main(): Promise<void> {
  const config = parseEnv(workerEnvSchema, process.env);
  const displays = new DisplayManager({
    computerId: config.LAZYBOY_COMPUTER_ID,
    ...defaultDesktopPaths(config.LAZYBOY_COMPUTER_ID, config.LAZYBOY_COMPUTER_HOME),
    displayBase: config.LAZYBOY_DISPLAY_BASE,
    screenLimit: config.TEAM_SCREEN_LIMIT,
    session: config.LAZYBOY_DESKTOP_SESSION,
    egressPolicy: egressPolicyOf(config),
  });
  const server = new ControlServer(config, { displays });
  const address = await server.listen();
  console.log(`lazyboy-worker ${config.LAZYBOY_COMPUTER_ID} listening on http://${address.address}:${address.port}`);
  const shutdown = (signal: NodeJS.Signals) => {
    console.log(`lazyboy-worker: ${signal}, stopping`);
    // The desktop goes with the worker: a worker that leaves Xvfb and Chromium running leaks a computer.
    void server
      .close()
      // And what it kept in /tmp: a worker starts for every boot, its runtime folders would pile up.
      .then(() => displays.dispose())
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

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
