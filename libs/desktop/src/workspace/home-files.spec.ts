import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { HomePathError, PathOutsideHomeError } from './errors.js';
import { HomeFiles } from './home-files.js';

/** The `code` of the HomePathError `action` throws. */
function homePathCode(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof HomePathError) return error.code;
    throw error;
  }
  throw new Error('nothing was thrown');
}

const asRoot = process.getuid?.() === 0;
/** nobody:nogroup stands in for the computer's user: enough to see that files are handed over. */
const owner = asRoot ? { uid: 65534, gid: 65534 } : undefined;

describe('HomeFiles', () => {
  const root = tempDirPath('lazyboy-home-files-');
  const home = path.join(root, 'homes', 'a');
  const outside = path.join(root, 'outside.txt');
  const files = new HomeFiles({ homeDir: home, owner, maxReadBytes: 64 });

  beforeAll(() => {
    makeWalkableDir(root);
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(outside, 'secret');
    symlinkSync('/etc', path.join(home, 'etc-link'));
    symlinkSync(outside, path.join(home, 'outside-link'));
    symlinkSync('/nonexistent-dir', path.join(home, 'dangling'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('writes a file with its parents, owned by the computer’s user, and reads it back', () => {
    const written = files.write('notes/today/plan.txt', 'buy milk\n');

    expect(written).toEqual({ path: 'notes/today/plan.txt', bytes: 9 });
    expect(files.read('notes/today/plan.txt')).toMatchObject({ content: 'buy milk\n', size: 9, nextOffset: undefined });
    const file = statSync(path.join(home, 'notes/today/plan.txt'));
    const dir = statSync(path.join(home, 'notes/today'));
    expect([file.mode & 0o777, dir.mode & 0o777]).toEqual([0o644, 0o755]);
    if (owner) expect([file.uid, file.gid, dir.uid]).toEqual([owner.uid, owner.gid, owner.uid]);
  });

  it('replaces a file whole, keeping its mode, and leaves no temporary file behind', () => {
    files.write('script.sh', '#!/bin/sh\necho one\n', { mode: 0o755 });
    files.write('script.sh', '#!/bin/sh\necho two\n');

    expect(readFileSync(path.join(home, 'script.sh'), 'utf8')).toBe('#!/bin/sh\necho two\n');
    expect(statSync(path.join(home, 'script.sh')).mode & 0o777).toBe(0o755);
    expect(files.list('.').map((entry) => entry.name)).not.toContainEqual(expect.stringMatching(/\.tmp$/));
  });

  it('reads in pages and never more than the cap', () => {
    files.write('big.txt', 'x'.repeat(100));

    const first = files.read('big.txt', { length: 1_000 });
    const second = files.read('big.txt', { offset: first.nextOffset ?? -1 });

    expect([first.bytes, first.nextOffset, first.size]).toEqual([64, 64, 100]);
    expect([second.bytes, second.nextOffset]).toEqual([36, undefined]);
    expect(files.read('big.txt', { offset: 10, length: 5, encoding: 'base64' }).content).toBe(
      Buffer.from('xxxxx').toString('base64'),
    );
  });

  it('lists a directory', () => {
    files.write('docs/a.md', 'a');
    files.write('docs/sub/b.md', 'bb');

    expect(files.list('docs').map(({ name, path: p, type, size }) => ({ name, p, type, size }))).toEqual([
      { name: 'a.md', p: 'docs/a.md', type: 'file', size: 1 },
      { name: 'sub', p: 'docs/sub', type: 'directory', size: expect.any(Number) },
    ]);
  });

  it('refuses paths that leave the home', () => {
    for (const target of ['../x', '../b/x', 'docs/../../x', '/etc/passwd', path.join(root, 'outside.txt')]) {
      expect(() => files.read(target)).toThrow(PathOutsideHomeError);
      expect(() => files.write(target, 'x')).toThrow(PathOutsideHomeError);
    }
    expect(() => files.list('..')).toThrow(PathOutsideHomeError);
  });

  it('refuses symlinks that point outside, for reading, listing and writing through them', () => {
    expect(() => files.read('etc-link/passwd')).toThrow(PathOutsideHomeError);
    expect(() => files.list('etc-link')).toThrow(PathOutsideHomeError);
    expect(() => files.write('etc-link/lazyboy-x', 'x')).toThrow(PathOutsideHomeError);
    expect(() => files.read('outside-link')).toThrow(PathOutsideHomeError);
    expect(() => files.write('dangling/x', 'x')).toThrow(PathOutsideHomeError);
  });

  it('replaces a symlink at the written name instead of writing through it', () => {
    files.write('outside-link', 'mine');

    expect(readFileSync(outside, 'utf8')).toBe('secret');
    expect(files.read('outside-link').content).toBe('mine');
  });

  it('tells missing files and wrong types apart', () => {
    expect(() => files.read('missing.txt')).toThrow(HomePathError);
    expect(homePathCode(() => files.read('docs'))).toBe('not-a-file');
    expect(homePathCode(() => files.list('docs/a.md'))).toBe('not-a-directory');
    expect(homePathCode(() => files.write('docs', 'x'))).toBe('not-a-file');
  });
});
