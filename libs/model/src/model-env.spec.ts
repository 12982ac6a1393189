import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MODEL_ENV_VARIABLES } from '@lazyboy/contracts';

describe('MODEL_ENV_VARIABLES', () => {
  it('names exactly the variables the credential chain reads', () => {
    // `lazyboy up` passes these, and only these, to the API: a variable read here but missing there would
    // silently never arrive.
    const source = readFileSync(fileURLToPath(new URL('./credentials.ts', import.meta.url)), 'utf8');
    const read = [...source.matchAll(/env(?:Value\(env, |\[)'([A-Z][A-Z0-9_]*)'/g)].map((match) => match[1]);
    expect(read.length).toBeGreaterThan(5);
    expect([...new Set(read)].sort()).toEqual([...MODEL_ENV_VARIABLES].sort());
  });
});
