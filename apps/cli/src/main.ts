#!/usr/bin/env node
import { ConfigError } from '@lazyboy/contracts';
import { down } from './stack/down.js';
import { status } from './stack/status.js';
import { up } from './stack/up.js';
import { HELP } from './help.js';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (rest.length > 0) {
    console.error(`lazyboy ${command}: unexpected arguments: ${rest.join(' ')}\n\n${HELP}`);
    return 2;
  }
  switch (command) {
    case 'up':
      return up(process.env);
    case 'down':
      return down(process.env);
    case 'status':
      return status(process.env);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(HELP);
      return 0;
    default:
      console.error(`lazyboy: unknown command '${command}'\n\n${HELP}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      `lazyboy: ${error instanceof Error && (error instanceof ConfigError || error.name.endsWith('Error')) ? error.message : String(error)}`,
    );
    process.exit(1);
  },
);
