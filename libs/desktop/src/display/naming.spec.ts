import { describe, expect, it } from '@jest/globals';
import { rmSync, writeFileSync } from 'node:fs';
import { parseDbusLaunchOutput } from './dbus-session.js';
import { desktopUserName } from './desktop-user.js';
import { displayLooksFree, displayNumberForSlot, findFreeDisplayBase, xLockFile } from './display-numbers.js';
import { DEFAULT_SCREEN_LIMIT, screenLimitFromEnv } from './screen-limit.js';

describe('display numbers', () => {
  it('puts slot 0 on :1 by default and shifts every slot by the base', () => {
    expect(displayNumberForSlot(0, 0)).toBe(1);
    expect(displayNumberForSlot(7, 0)).toBe(8);
    expect(displayNumberForSlot(2, 300)).toBe(303);
  });

  it('skips bases whose displays hold a lock file', () => {
    const base = findFreeDisplayBase(3, 5_000);
    const taken = displayNumberForSlot(1, base);
    writeFileSync(xLockFile(taken), '1\n');
    try {
      expect(displayLooksFree(taken)).toBe(false);
      expect(findFreeDisplayBase(3, base)).toBeGreaterThanOrEqual(taken);
    } finally {
      rmSync(xLockFile(taken), { force: true });
    }
  });
});

describe('desktopUserName', () => {
  it('uses the computer id when it makes a valid, short user name', () => {
    expect(desktopUserName('local')).toBe('lazyboy-local');
  });

  it('hashes ids that are too long or not valid in a user name, stably', () => {
    const id = '0193a2b4-7c1d-7e2f-8a3b-4c5d6e7f8091';
    expect(desktopUserName(id)).toMatch(/^lazyboy-[0-9a-f]{16}$/);
    expect(desktopUserName(id)).toBe(desktopUserName(id));
    expect(desktopUserName('Team')).not.toBe(desktopUserName('team'));
  });
});

describe('parseDbusLaunchOutput', () => {
  it('reads the bus address and the daemon pid', () => {
    const output = [
      "DBUS_SESSION_BUS_ADDRESS='unix:path=/tmp/dbus-abc,guid=0123';",
      'export DBUS_SESSION_BUS_ADDRESS;',
      'DBUS_SESSION_BUS_PID=4242;',
      'DBUS_SESSION_BUS_WINDOWID=2097153;',
    ].join('\n');
    expect(parseDbusLaunchOutput(output)).toEqual({ address: 'unix:path=/tmp/dbus-abc,guid=0123', pid: 4242 });
    expect(parseDbusLaunchOutput('')).toBeUndefined();
  });
});

describe('screenLimitFromEnv', () => {
  it('defaults to 8 and accepts 1..64', () => {
    expect(screenLimitFromEnv({})).toBe(DEFAULT_SCREEN_LIMIT);
    expect(screenLimitFromEnv({ TEAM_SCREEN_LIMIT: '3' })).toBe(3);
    expect(() => screenLimitFromEnv({ TEAM_SCREEN_LIMIT: '0' })).toThrow(RangeError);
    expect(() => screenLimitFromEnv({ TEAM_SCREEN_LIMIT: 'many' })).toThrow(RangeError);
  });
});
