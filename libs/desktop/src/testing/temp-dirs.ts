import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A fresh path for a temporary directory that `makeWalkableDir` creates later: suites name their directories
 * while being collected but create them in beforeAll, so a filtered run (-t) that skips the hooks leaves
 * nothing behind.
 */
export function tempDirPath(prefix: string): string {
  return path.join(os.tmpdir(), `${prefix}${randomBytes(6).toString('hex')}`);
}

/**
 * Creates it 0755: the computer's unprivileged user must be able to walk through it to its home and
 * runtime directory (mkdtemp's 0700 would hide them from Xvfb and Chromium running as that user).
 */
export function makeWalkableDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
}
