import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@lazyboy/localstack';

const run = promisify(execFile);

describe('prisma/migrations', () => {
  it('build exactly the schema in prisma/schema.prisma (no change left without a migration)', async () => {
    // Replays every migration into a shadow database on the test Postgres and diffs it with the schema. Making
    // that database takes the superuser: the applications' role may not create databases.
    const { stdout } = await run(
      path.join(repoRoot, 'node_modules/.bin/prisma'),
      ['migrate', 'diff', '--from-migrations', 'prisma/migrations', '--to-schema-datamodel', 'prisma/schema.prisma', '--script'],
      {
        cwd: repoRoot,
        env: { ...process.env, DATABASE_URL: process.env.LAZYBOY_TEST_POSTGRES_ADMIN_URL, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
        timeout: 90_000,
      },
    );
    expect(stdout.trim()).toBe('-- This is an empty migration.');
  }, 120_000);
});
