import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeTinyGguf } from './tiny-gguf.js';

describe('writeTinyGguf', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tiny-gguf-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes the same small GGUF file on every run, and another one for another seed', async () => {
    const first = await writeTinyGguf(path.join(dir, 'a.gguf'));
    await writeTinyGguf(path.join(dir, 'b.gguf'));
    await writeTinyGguf(path.join(dir, 'c.gguf'), { seed: 7 });
    expect(first).toMatchObject({ bytes: 177_056, vocabSize: 363, tensorCount: 21 });
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((name) => readFile(path.join(dir, `${name}.gguf`))));
    expect(a?.subarray(0, 4).toString('ascii')).toBe('GGUF');
    expect(a?.equals(b ?? Buffer.alloc(0))).toBe(true);
    expect(a?.equals(c ?? Buffer.alloc(0))).toBe(false);
  });
});
