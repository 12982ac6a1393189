#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError } from '@lazyboy/contracts';
import { ModelError } from '@lazyboy/model';
import { createCliAgent, type CliAgent, type CliAgentOptions } from './agent/cli-agent.js';
import { repl } from './commands/repl-command.js';
import { runTask } from './commands/run-command.js';
import { smoke } from './commands/smoke-command.js';
import { HELP } from './help.js';
import { UnknownSessionError } from './sessions/session-store.js';
import { down } from './stack/down.js';
import { status } from './stack/status.js';
import { up } from './stack/up.js';
import { rotateKey } from './stack/vault-key.js';

class UsageError extends Error {
  override readonly name = 'UsageError';
}

function agentOptions(args: string[], allowPositionals: boolean) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals,
    options: {
      session: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      playbook: { type: 'string' },
    },
  });
  const options: CliAgentOptions = {
    ...(values.session ? { sessionId: values.session } : {}),
    ...(values.model ? { model: values.model } : {}),
    ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
    ...(values.playbook ? { playbook: readFileSync(values.playbook, 'utf8') } : {}),
  };
  return { options, positionals };
}

/** Runs a command with a CLI agent and closes what it opened (the browser) before the process exits. */
async function withAgent(options: CliAgentOptions, command: (agent: CliAgent) => Promise<number>): Promise<number> {
  const agent = createCliAgent(process.env, options);
  try {
    return await command(agent);
  } finally {
    await agent.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const noArguments = () => {
    if (rest.length > 0) throw new UsageError(`lazyboy ${command}: unexpected arguments: ${rest.join(' ')}`);
  };
  switch (command) {
    case 'up':
      noArguments();
      return up(process.env);
    case 'down':
      noArguments();
      return down(process.env);
    case 'status':
      noArguments();
      return status(process.env);
    case 'chat': {
      const { options, positionals } = agentOptions(rest, true);
      return withAgent({ ...options, chatOnly: true }, async (agent) => {
        if (positionals.length === 0) return repl(agent, 'chat');
        const { outcome } = await agent.runtime.run({ message: positionals.join(' ') });
        return outcome.status === 'done' ? 0 : 1;
      });
    }
    case 'run': {
      const { options, positionals } = agentOptions(rest, true);
      if (positionals.length === 0)
        throw new UsageError('lazyboy run: say what to do, e.g. lazyboy run "list the largest files here"');
      return withAgent(options, (agent) => runTask(agent, positionals.join(' ')));
    }
    case 'agent': {
      const { options } = agentOptions(rest, false);
      return withAgent(options, (agent) => repl(agent, 'agent'));
    }
    case 'vault':
      if (rest.length !== 1 || rest[0] !== 'rotate-key')
        throw new UsageError('lazyboy vault: the one command is `lazyboy vault rotate-key`');
      return rotateKey(process.env);
    case 'smoke':
      noArguments();
      return smoke();
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(HELP);
      return 0;
    default:
      throw new UsageError(`lazyboy: unknown command '${command}'`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (
      error instanceof UsageError ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      console.error(`${error.message}\n\n${HELP}`);
      process.exit(2);
    }
    const known = error instanceof ConfigError || error instanceof ModelError || error instanceof UnknownSessionError;
    console.error(
      `lazyboy: ${known || (error instanceof Error && error.name !== 'Error') ? (error as Error).message : String(error)}`,
    );
    process.exit(1);
  },
);
