import { afterEach, describe, expect, it } from '@jest/globals';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SHARED_HOME_UID_MIN, sharedHomeUid } from './desktop-user.js';

const asRoot = process.getuid?.() === 0;
const itAsRoot = asRoot ? it : it.skip;

// Each worker of a static pool has a password file of its own, so a computer's uid comes from the shared
// homes directory itself: the same for the same computer, never another home's.
describe('sharedHomeUid', () => {
  const dirs: string[] = [];
  const homesDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-homes-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('draws a new home its uid from the user name, above the ranges distributions and pods use', () => {
    const homes = homesDir();
    const uid = sharedHomeUid(path.join(homes, 'a'), 'lazyboy-a');

    expect(uid).toBeGreaterThanOrEqual(SHARED_HOME_UID_MIN);
    expect(uid).toBeLessThan(2 ** 31);
    expect(sharedHomeUid(path.join(homes, 'a'), 'lazyboy-a')).toBe(uid);
    expect(sharedHomeUid(path.join(homes, 'b'), 'lazyboy-b')).not.toBe(uid);
  });

  itAsRoot("keeps a home's own uid, and never takes another home's", () => {
    const homes = homesDir();
    const a = path.join(homes, 'a');
    const b = path.join(homes, 'b');
    const drawnForB = sharedHomeUid(b, 'lazyboy-b');
    // Another worker made home a with the very uid b would draw.
    mkdirSync(a);
    chownSync(a, drawnForB, drawnForB);

    const uidB = sharedHomeUid(b, 'lazyboy-b');
    expect(uidB).not.toBe(drawnForB);
    expect(sharedHomeUid(a, 'lazyboy-a')).toBe(drawnForB);

    mkdirSync(b);
    chownSync(b, uidB, uidB);
    expect(sharedHomeUid(b, 'lazyboy-b')).toBe(uidB);
    // A home owned by someone outside the range (restored by hand, made by an older worker) gets a uid of its own.
    chownSync(b, 1000, 1000);
    expect(sharedHomeUid(b, 'lazyboy-b')).toBeGreaterThanOrEqual(SHARED_HOME_UID_MIN);
  });
});
