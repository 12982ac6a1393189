import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManagedProcess } from '@lazyboy/localstack';
import { CrashLoopError, Supervisor } from './supervisor.js';
import { sleep } from '../../../../test/support/index.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-supervisor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function shell(script: string): () => Promise<ManagedProcess> {
  return async () =>
    new ManagedProcess({ name: 'worker', command: 'sh', args: ['-c', script], logFile: path.join(dir, 'worker.log') });
}

describe('Supervisor', () => {
  it('starts a component again when it exits on its own, and stops it for good on stopAll', async () => {
    const lines: string[] = [];
    const pids: number[][] = [];
    const supervisor = new Supervisor({
      print: (line) => lines.push(line),
      onChange: (running) => pids.push(running.map((r) => r.pid)),
      firstRestartDelayMs: 50,
    });
    let starts = 0;
    await supervisor.start({
      name: 'worker',
      start: () => (++starts === 1 ? shell('exit 3')() : shell('sleep 300')()),
    });
    for (let i = 0; i < 100 && starts < 2; i++) await sleep(20);
    await sleep(100);
    expect(starts).toBe(2);
    expect(lines.join('\n')).toMatch(/worker exited \(code 3\); restarting it in/);
    expect(pids.at(-1)).toHaveLength(1);

    await supervisor.stopAll();
    expect(pids.at(-1)).toEqual([]);
    await sleep(150);
    expect(starts).toBe(2);
  });

  it('gives up on a component that keeps exiting', async () => {
    const supervisor = new Supervisor({
      print: () => undefined,
      onChange: () => undefined,
      firstRestartDelayMs: 10,
      maxRestarts: 3,
    });
    await supervisor.start({ name: 'worker', start: shell('exit 1') });
    const crash = await supervisor.crashLoop;
    expect(crash).toBeInstanceOf(CrashLoopError);
    expect(crash.message).toMatch(/worker keeps exiting \(4 times/);
    await supervisor.stopAll();
  });
});
