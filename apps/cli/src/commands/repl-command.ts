import type { Checkpoint } from '@lazyboy/agent';
import type { CliAgent } from '../agent/cli-agent.js';
import { EXIT_INTERRUPTED } from './run-command.js';

/**
 * `lazyboy agent` (and interactive `lazyboy chat`): a conversation, one turn per line. Empty lines are
 * ignored; /exit and /quit leave; /session prints the id; /stop or Ctrl-C cancels the running turn and
 * keeps the REPL; a line typed while the agent works steers it at its next boundary. Saved after every turn.
 */
export async function repl(agent: CliAgent, label: string): Promise<number> {
  let checkpoint: Checkpoint | undefined = agent.resumeFrom;
  let running: AbortController | undefined;
  process.stderr.write(
    `${label} session ${agent.store.id}${checkpoint ? ' (resumed)' : ''} — /exit to leave, /stop to interrupt\n`,
  );

  const onSigint = () => {
    if (running) {
      process.stderr.write('\n中斷這一輪 / stopping this turn\n');
      running.abort();
    } else {
      process.stderr.write('\n');
      process.exit(EXIT_INTERRUPTED);
    }
  };
  process.on('SIGINT', onSigint);
  // Only while a turn runs: a line typed then is steering (or /stop); otherwise it waits for the prompt.
  const steerWhileRunning = (line: string) => {
    const text = line.trim();
    if (!running || text === '') return;
    if (text === '/stop') running.abort();
    else if (text === '/session') process.stderr.write(`session ${agent.store.id}\n`);
    else {
      agent.runtime.steer(text);
      process.stderr.write('（已收到，會在下一步套用 / noted, applied at the next step）\n');
    }
  };
  try {
    for (;;) {
      process.stdout.write('› ');
      const line = await agent.input.next();
      if (line === null) {
        process.stdout.write('\n');
        return 0;
      }
      const text = line.trim();
      if (text === '') continue;
      if (text === '/exit' || text === '/quit') return 0;
      if (text === '/session') {
        process.stdout.write(`${agent.store.id}\n`);
        continue;
      }
      if (text === '/stop') {
        process.stderr.write('nothing is running\n');
        continue;
      }
      running = new AbortController();
      agent.input.onUnclaimed = steerWhileRunning;
      try {
        const result = await agent.runtime.run({
          message: text,
          signal: running.signal,
          ...(checkpoint ? { resume: checkpoint } : {}),
        });
        checkpoint = result.checkpoint;
        if (result.outcome.status === 'cancelled') process.stderr.write('（已停止，狀態已保存 / stopped; state saved）\n');
      } finally {
        running = undefined;
        agent.input.onUnclaimed = undefined;
      }
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
}
