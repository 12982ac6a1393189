import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { testDisplayBase } from '../testing/display-base.js';
import { ScreenManager } from './screen-manager.js';
import { sleep } from '../../../../test/support/index.js';

const commandOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
};

describe('ScreenManager with the full XFCE session', () => {
  const root = tempDirPath('lazyboy-xfce-');
  const manager = new ScreenManager({
    computerId: 'xfce-spec',
    homeDir: path.join(root, 'home'),
    runtimeDir: path.join(root, 'run'),
    displayBase: testDisplayBase(1, 700),
    screenLimit: 1,
    session: 'xfce',
    stopGraceMs: 3_000,
    log: () => undefined,
  });

  beforeAll(() => makeWalkableDir(root));
  afterAll(async () => {
    await manager.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('boots the XFCE session (window manager and panel) with Chromium answering CDP, and stops it all', async () => {
    const endpoints = await manager.ensureScreen(0, { profileKey: 'xfce' });
    expect(await manager.cdp(endpoints.slot).answers()).toBe(true);
    // The panel comes up shortly after the session's window manager.
    let commands: string[] = [];
    for (let i = 0; i < 100; i++) {
      commands = manager.processIds(0).map(commandOf);
      if (commands.some((c) => c.includes('xfce4-panel'))) break;
      await sleep(100);
    }
    expect(commands.some((c) => c.startsWith('xfce4-session'))).toBe(true);
    expect(commands.some((c) => c.includes('xfwm4'))).toBe(true);
    expect(commands.some((c) => c.includes('xfce4-panel'))).toBe(true);

    const pids = manager.processIds(0);
    await manager.stop();
    expect(pids.filter((pid) => commandOf(pid) !== '')).toEqual([]);
  }, 90_000);
});
