import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  apiEnvSchema,
  cliEnvSchema,
  poolWorkerEnvSchema,
  stackEnvSchema,
  webEnvSchema,
  workerEnvSchema,
  workerModeEnvSchema,
} from '@lazyboy/contracts';
import { repoRoot } from '@lazyboy/localstack';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

describe('README', () => {
  it('documents every environment variable the processes read', () => {
    const names = [
      apiEnvSchema,
      cliEnvSchema,
      stackEnvSchema,
      webEnvSchema,
      workerEnvSchema,
      workerModeEnvSchema,
      poolWorkerEnvSchema,
    ].flatMap((schema) => Object.keys(schema.shape));
    const undocumented = [...new Set(names)].filter((name) => !readme.includes(`\`${name}\``));
    expect(undocumented).toEqual([]);
  });

  it('names the test command that CI runs', () => {
    const ci = readFileSync(path.join(repoRoot, '.ci/run'), 'utf8');
    const command = /^exec (.+)$/m.exec(ci)?.[1];
    expect(command).toBe('./lazyboy test');
    expect(readme).toContain(command);
  });
});
