import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManagedProcess, groupAlive, isAlive } from './managed-process.js';
import { sleep } from '../../../test/support/index.js';

async function waitForFile(file: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    try {
      const text = readFileSync(file, 'utf8');
      if (text.trim()) return text;
    } catch {
      // not written yet
    }
    await sleep(50);
  }
  throw new Error(`${file} never appeared`);
}

describe('ManagedProcess', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-proc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops the whole group, grandchildren included, and logs output to its file', async () => {
    const pidFile = path.join(dir, 'grandchild.pid');
    const proc = new ManagedProcess({
      name: 'family',
      command: 'sh',
      args: ['-c', `echo started; sleep 300 & echo $! > ${pidFile}; wait`],
      logFile: path.join(dir, 'family.log'),
    });
    const grandchild = Number(await waitForFile(pidFile));
    expect(isAlive(grandchild)).toBe(true);

    await proc.stop(2_000);

    expect(proc.running).toBe(false);
    expect(isAlive(grandchild)).toBe(false);
    expect(groupAlive(proc.pid)).toBe(false);
    expect(readFileSync(path.join(dir, 'family.log'), 'utf8')).toContain('started');
  });

  it('keeps its log to its owner: 0600 in a directory made 0700, an older 0644 log tightened', async () => {
    const fresh = path.join(dir, 'made', 'fresh.log');
    const older = path.join(dir, 'older.log');
    writeFileSync(older, 'from before\n', { mode: 0o644 });
    for (const logFile of [fresh, older]) {
      const proc = new ManagedProcess({ name: 'quiet', command: 'true', args: [], logFile });
      await proc.exited;
      expect((statSync(logFile).mode & 0o777).toString(8)).toBe('600');
    }
    expect((statSync(path.dirname(fresh)).mode & 0o777).toString(8)).toBe('700');
    expect(readFileSync(older, 'utf8')).toBe('from before\n');
  });

  it('kills a process that ignores its stop signal once the grace period is over', async () => {
    const ready = path.join(dir, 'stubborn.ready');
    const proc = new ManagedProcess({
      name: 'stubborn',
      command: 'sh',
      args: ['-c', `trap '' TERM; echo up > ${ready}; while true; do sleep 0.1; done`],
      logFile: path.join(dir, 'stubborn.log'),
    });
    await waitForFile(ready);
    const started = Date.now();
    await proc.stop(500);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(proc.running).toBe(false);
    expect((await proc.exited).signal).toBe('SIGKILL');
  });
});
