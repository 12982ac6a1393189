import type { Checkpoint } from '@lazyboy/agent';
import type { CliAgent } from '../agent/cli-agent.js';

export const EXIT_INTERRUPTED = 130;

/**
 * `lazyboy run "task"`: one task with tools, to the end. Exit 0 when done, 1 when blocked or failed, 130
 * after Ctrl-C (the session is saved and resumable with `lazyboy agent --session <id>`).
 */
export async function runTask(agent: CliAgent, task: string): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) process.exit(EXIT_INTERRUPTED);
    process.stderr.write('\n中斷中，正在保存… / stopping at the next safe point (Ctrl-C again to quit now)\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    const resume: Checkpoint | undefined = agent.resumeFrom;
    const { outcome } = await agent.runtime.run({ message: task, signal: controller.signal, ...(resume ? { resume } : {}) });
    if (outcome.status === 'cancelled') {
      process.stderr.write(`session ${agent.store.id} saved; resume with: lazyboy agent --session ${agent.store.id}\n`);
      return EXIT_INTERRUPTED;
    }
    return outcome.status === 'done' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
