import { afterEach, describe, expect, it } from '@jest/globals';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { placeState, prepareStateDir, StateDirError, walkableByAll } from './state-placement.js';

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

describe("where a data directory's shared state goes", () => {
  const made: string[] = [];
  const tempDir = (mode: number) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-placement-'));
    chmodSync(dir, mode);
    made.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('stays in a data directory every user can walk to, and in any directory when not root', () => {
    const open = tempDir(0o755);
    const stateRoot = tempDir(0o755);
    const dataDir = path.join(open, 'data');
    expect(placeState(dataDir, { asRoot: true, stateRoot })).toEqual({ stateDir: dataDir, relocated: false });
    prepareStateDir(dataDir, placeState(dataDir, { asRoot: true, stateRoot }));
    expect(mode(dataDir)).toBe('755');

    const closed = tempDir(0o700);
    const privateData = path.join(closed, 'data');
    expect(placeState(privateData, { asRoot: false, stateRoot })).toEqual({ stateDir: privateData, relocated: false });
  });

  it('moves out of a private one (as root), keeps it private and records where, so a moved checkout follows', () => {
    const closed = tempDir(0o700);
    const stateRoot = tempDir(0o755);
    const dataDir = path.join(closed, 'checkout', 'data');
    const placement = placeState(dataDir, { asRoot: true, stateRoot });
    expect(placement.relocated).toBe(true);
    expect(path.dirname(placement.stateDir)).toBe(stateRoot);
    // The same answer every time, before anything is made (what `down` and `status` rely on).
    expect(placeState(dataDir, { asRoot: true, stateRoot })).toEqual(placement);

    prepareStateDir(dataDir, placement);
    expect([mode(closed), mode(dataDir), mode(placement.stateDir)]).toEqual(['700', '700', '755']);
    expect(readFileSync(path.join(placement.stateDir, 'data-dir'), 'utf8').trim()).toBe(dataDir);

    // The checkout moves: the record in the data directory still leads to the same state.
    const moved = path.join(closed, 'elsewhere');
    mkdirSync(moved);
    const movedData = path.join(moved, 'data');
    mkdirSync(movedData, { mode: 0o700 });
    writeFileSync(path.join(movedData, 'state-dir'), readFileSync(path.join(dataDir, 'state-dir')));
    rmSync(path.dirname(dataDir), { recursive: true });
    const followed = placeState(movedData, { asRoot: true, stateRoot });
    expect(followed).toEqual(placement);
    prepareStateDir(movedData, followed);
    expect(readFileSync(path.join(placement.stateDir, 'data-dir'), 'utf8').trim()).toBe(movedData);
  });

  it('refuses state that another live data directory still points at', () => {
    const closed = tempDir(0o700);
    const stateRoot = tempDir(0o755);
    const first = path.join(closed, 'a');
    prepareStateDir(first, placeState(first, { asRoot: true, stateRoot }));
    // A copy of the first data directory, record included: two stacks on one database.
    const copy = path.join(closed, 'b');
    mkdirSync(copy, { mode: 0o700 });
    writeFileSync(path.join(copy, 'state-dir'), readFileSync(path.join(first, 'state-dir')));
    const placement = placeState(copy, { asRoot: true, stateRoot });
    expect(() => prepareStateDir(copy, placement)).toThrow(StateDirError);
    expect(() => prepareStateDir(copy, placement)).toThrow(/holds the state of .*\/a; set LAZYBOY_STATE_DIR/);
  });

  it('stops with what to do when the state root cannot be reached by the service users', () => {
    const closed = tempDir(0o700);
    const dataDir = path.join(closed, 'data');
    const unreachableRoot = path.join(closed, 'state');
    const placement = placeState(dataDir, { asRoot: true, stateRoot: unreachableRoot });
    expect(() => prepareStateDir(dataDir, placement)).toThrow(/not reachable by the postgres, redis and computer users/);
    // Nothing recorded: the next start decides again.
    expect(existsSync(path.join(dataDir, 'state-dir'))).toBe(false);
  });

  it('keeps a cluster an earlier version made in the data directory where it is', () => {
    const closed = tempDir(0o700);
    const dataDir = path.join(closed, 'data');
    mkdirSync(path.join(dataDir, 'postgres'), { recursive: true });
    expect(placeState(dataDir, { asRoot: true, stateRoot: tempDir(0o755) })).toEqual({ stateDir: dataDir, relocated: false });
  });

  it('counts a path walkable only when every directory on it lets others pass', () => {
    const open = tempDir(0o755);
    expect(walkableByAll(path.join(open, 'not', 'made', 'yet'))).toBe(true);
    const closed = tempDir(0o700);
    expect(walkableByAll(path.join(closed, 'inside'))).toBe(false);
    expect(walkableByAll(closed)).toBe(false);
  });
});
