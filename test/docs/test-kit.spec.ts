import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '@lazyboy/localstack';
import { codeOf, sourceFiles } from './source-scan.js';

// Suites wait, pause and call the API as a person through one kit (test/support/index.ts). A suite that
// grows its own poll loop or sleep is where the next flaky timeout hides, with its own interval and its
// own error text; this keeps them in the kit.

const KIT = path.join('test', 'support');
const ROOTS = ['apps', 'libs', 'test'];

/** What a hand-made wait looks like. */
export const HAND_MADE_WAITS: { what: string; pattern: RegExp }[] = [
  { what: 'a promise around setTimeout', pattern: /new Promise\s*(<[^>]*>)?\(\s*\(?\s*\w+\s*\)?\s*=>\s*setTimeout\(/ },
  { what: 'node:timers/promises', pattern: /from ['"](node:)?timers\/promises['"]/ },
  { what: 'a poll helper of its own', pattern: /\bfunction\s+(until|waitFor|waitUntil|poll\w*|sleep|delay|eventually)\s*[<(]/ },
  { what: 'a sleep of its own', pattern: /\bconst\s+(sleep|delay|pause)\s*=/ },
  {
    what: 'a part of the kit instead of the kit',
    pattern: /from ['"][./]*(test\/)?support\/(people|waits|model-requests)\.js['"]/,
  },
];

describe('the test kit', () => {
  it('recognises a hand-made wait', () => {
    const samples = [
      'await new Promise((r) => setTimeout(r, 50));',
      "import { setTimeout as sleep } from 'node:timers/promises';",
      'async function until(probe: () => boolean) {',
      'const sleep = (ms: number) => 0;',
      "import { signUp } from '../support/people.js';",
    ];
    for (const [index, sample] of samples.entries()) expect(HAND_MADE_WAITS[index]!.pattern.test(sample)).toBe(true);
  });

  it('is where every suite and harness gets its waits from', () => {
    // This file's samples are hand-made waits on purpose.
    // Spec files anywhere, and every file of test/ (the harnesses), but the kit's own.
    const files = sourceFiles(ROOTS, {
      skip: [KIT],
      keep: (file) => /\.tsx?$/.test(file) && (file.startsWith(`test${path.sep}`) || /\.spec\.tsx?$/.test(file)),
    }).filter((file) => file !== path.join('test', 'docs', 'test-kit.spec.ts'));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) => {
      const code = codeOf(readFileSync(path.join(repoRoot, file), 'utf8'));
      return HAND_MADE_WAITS.filter(({ pattern }) => pattern.test(code)).map(({ what }) => `${file}: ${what}`);
    });
    expect(offenders).toEqual([]);
  });
});
