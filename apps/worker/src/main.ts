import { ConfigError, parseEnv, poolWorkerEnvSchema, workerEnvSchema, workerModeEnvSchema } from '@lazyboy/contracts';
import { screensOf } from './computer-screens.js';
import { ControlServer } from './control-server.js';
import { PoolWorker } from './pool/pool-worker.js';
import { settledWithin } from './settled-within.js';

/** How long stopping may wait for the control server before the desktop is stopped regardless. */
const SERVER_CLOSE_MS = 3_000;

/** What the process runs: one computer's worker, or a warm pool worker the API assigns a computer later. */
interface Served {
  close(): Promise<void>;
  /** Stops the computer's desktop (suspended or not), and what it kept in /tmp. */
  dispose(): Promise<void>;
}

async function main(): Promise<void> {
  const { LAZYBOY_WORKER_MODE: mode } = parseEnv(workerModeEnvSchema, process.env);
  let served: Served;
  if (mode === 'pool') {
    // A released computer ends the process (0 once its desktop is stopped): its container's restart
    // policy brings a fresh warm worker up, so nothing of that computer lives on in this one.
    const worker = new PoolWorker(parseEnv(poolWorkerEnvSchema, process.env), { exit: (code) => process.exit(code) });
    const address = await worker.listen();
    console.log(`lazyboy-worker (pool, unassigned) listening on http://${address.address}:${address.port}`);
    served = { close: () => worker.close(), dispose: () => worker.dispose() };
  } else {
    const config = parseEnv(workerEnvSchema, process.env);
    const screens = screensOf(config);
    const server = new ControlServer(config, { screens });
    const address = await server.listen();
    console.log(`lazyboy-worker ${config.LAZYBOY_COMPUTER_ID} listening on http://${address.address}:${address.port}`);
    served = { close: () => server.close(), dispose: () => screens.dispose() };
  }
  const shutdown = (signal: NodeJS.Signals) => {
    console.log(`lazyboy-worker: ${signal}, stopping`);
    // Closing the server also ends the shells and drops the CDP clients; it gets a bounded time, so that a
    // client a frozen (suspended) browser never answers cannot keep the desktop from being stopped.
    void settledWithin(served.close(), SERVER_CLOSE_MS, (line) =>
      console.error(`lazyboy-worker: closing the control server failed: ${line}`),
    )
      // The desktop goes with the worker, suspended or not (dispose continues it before it stops it): a
      // worker that leaves Xvfb and Chromium running leaks a computer. And what it kept in /tmp: a worker
      // starts for every boot, its runtime folders would pile up.
      .then(() => served.dispose())
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
