import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { runCommand } from '../process/run-command.js';
import type { RunAs } from '../process/run-as.js';
import { DesktopSetupError } from './errors.js';

/**
 * Writes a fresh MIT-MAGIC-COOKIE-1 for `display` into `file` (0600, the desktop user's). Xvfb gets it with
 * -auth, so only holders of the file can talk to the display (without it, any local user could drive it).
 */
export async function createXAuthority(
  file: string,
  display: string,
  runAs: RunAs | undefined,
  env: Record<string, string>,
): Promise<void> {
  rmSync(file, { force: true });
  const cookie = randomBytes(16).toString('hex');
  const result = await runCommand('xauth', ['-q', '-f', file, 'add', display, '.', cookie], { runAs, env });
  if (result.code !== 0) {
    throw new DesktopSetupError(`xauth could not write ${file}: ${result.stderr.trim() || `code ${result.code}`}`);
  }
}
