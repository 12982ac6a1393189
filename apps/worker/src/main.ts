import { ConfigError, parseEnv, workerEnvSchema } from '@lazyboy/contracts';
import { ControlServer } from './control-server.js';

async function main(): Promise<void> {
  const config = parseEnv(workerEnvSchema, process.env);
  const server = new ControlServer(config);
  const address = await server.listen();
  console.log(`lazyboy-worker ${config.LAZYBOY_COMPUTER_ID} listening on http://${address.address}:${address.port}`);
  const shutdown = (signal: NodeJS.Signals) => {
    console.log(`lazyboy-worker: ${signal}, stopping`);
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
