import { afterAll, describe, expect, it } from '@jest/globals';
import { lstatSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { prepareProfile } from './chromium.js';

const SINGLETONS = ['SingletonLock', 'SingletonSocket', 'SingletonCookie'];
const root = mkdtempSync(path.join(tmpdir(), 'lazyboy-profile-'));

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A prepared profile with Chromium's three singleton links, the lock naming its holder as `<host>-<pid>`. */
function lockedProfile(holder: string): string {
  const profile = mkdtempSync(path.join(root, 'profile-'));
  prepareProfile(profile, undefined, root);
  symlinkSync(holder, path.join(profile, 'SingletonLock'));
  symlinkSync('/tmp/org.chromium.Chromium.gone/SingletonSocket', path.join(profile, 'SingletonSocket'));
  symlinkSync('1234567890', path.join(profile, 'SingletonCookie'));
  return profile;
}

/** The singleton links still there (dangling ones count: existsSync would follow them). */
function singletons(profile: string): string[] {
  return SINGLETONS.filter((name) => {
    try {
      lstatSync(path.join(profile, name));
      return true;
    } catch {
      return false;
    }
  });
}

describe("Chromium's profile lock when a screen's browser starts", () => {
  it('goes when it names another host: the pod before this one, on the same home volume', () => {
    const profile = lockedProfile(`lazyboy-computer-0a1b2c-${process.pid}`);
    prepareProfile(profile, undefined, root);
    expect(singletons(profile)).toEqual([]);
  });

  it('goes when its process on this host is gone', () => {
    const profile = lockedProfile(`${hostname()}-999999999`);
    prepareProfile(profile, undefined, root);
    expect(singletons(profile)).toEqual([]);
  });

  it('stays while its process on this host runs', () => {
    const profile = lockedProfile(`${hostname()}-${process.pid}`);
    prepareProfile(profile, undefined, root);
    expect(singletons(profile)).toEqual(SINGLETONS);
  });
});
