import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { processState } from '../testing/process-scan.js';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { DesktopProcess, ProcessExitedError } from './desktop-process.js';
import { processGone } from './proc-table.js';
import { runCommand } from './run-command.js';
import { sendSignal } from './signals.js';
import { sleep } from '../../../../test/support/index.js';

async function waitForFile(file: string): Promise<string> {
  for (let i = 0; i < 200; i += 1) {
    try {
      const text = readFileSync(file, 'utf8');
      if (text.trim()) return text.trim();
    } catch {
      // not written yet
    }
    await sleep(25);
  }
  throw new Error(`${file} never appeared`);
}

describe('DesktopProcess', () => {
  const dir = tempDirPath('lazyboy-desktop-proc-');
  beforeAll(() => makeWalkableDir(dir));
  const env = { PATH: '/usr/bin:/bin' };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = (name: string, script: string): Promise<DesktopProcess> =>
    DesktopProcess.start({ name, command: 'sh', args: ['-c', script], env, cwd: dir, logFile: path.join(dir, `${name}.log`) });

  it('stops the whole process group, grandchildren included', async () => {
    const pidFile = path.join(dir, 'grandchild.pid');
    const family = await start('family', `sleep 300 & echo $! > ${pidFile}; wait`);
    const grandchild = Number(await waitForFile(pidFile));
    expect(processGone(grandchild)).toBe(false);

    await family.stop(2_000);

    expect(family.running).toBe(false);
    expect(processGone(grandchild)).toBe(true);
  });

  it('kills a process that ignores SIGTERM once the grace is over', async () => {
    const ready = path.join(dir, 'stubborn.ready');
    const stubborn = await start('stubborn', `trap '' TERM; echo up > ${ready}; while true; do sleep 0.1; done`);
    await waitForFile(ready);

    await stubborn.stop(300);

    expect((await stubborn.exited).signal).toBe('SIGKILL');
  });

  it('stops a frozen (SIGSTOPped) group cleanly, without waiting for SIGKILL', async () => {
    const ready = path.join(dir, 'frozen.ready');
    const frozen = await start('frozen', `echo up > ${ready}; exec sleep 300`);
    await waitForFile(ready);
    frozen.signalGroup('SIGSTOP');
    for (let i = 0; i < 100 && processState(frozen.pid) !== 'T'; i += 1) await sleep(10);
    expect(processState(frozen.pid)).toBe('T');

    await frozen.stop(30_000);

    expect((await frozen.exited).signal).toBe('SIGTERM');
  });

  it('describes an early exit with the end of its log', async () => {
    const failing = await start('failing', 'echo "cannot open display"; exit 3');
    await failing.exited;

    const error = failing.exitError();

    expect(error).toBeInstanceOf(ProcessExitedError);
    expect(error?.message).toBe('failing exited (code 3): cannot open display');
  });

  it('refuses to start a program that does not exist', async () => {
    await expect(
      DesktopProcess.start({
        name: 'ghost',
        command: '/nonexistent/ghost',
        args: [],
        env,
        cwd: dir,
        logFile: path.join(dir, 'ghost.log'),
      }),
    ).rejects.toThrow(/cannot start ghost/);
  });
});

describe('runCommand', () => {
  it('returns once the command exits even if a daemon it forked keeps the output pipe open', async () => {
    const result = await runCommand('sh', ['-c', 'sleep 300 & echo "daemon=$!"'], { env: { PATH: '/usr/bin:/bin' } });
    const daemon = Number(/daemon=(\d+)/.exec(result.stdout)?.[1]);
    try {
      expect(result.code).toBe(0);
      expect(processGone(daemon)).toBe(false);
    } finally {
      sendSignal(daemon, 'SIGKILL');
    }
  });
});
