import { accessSync, chmodSync, chownSync, constants, lstatSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '@lazyboy/contracts';
import { WorkerHttpError } from '../http/errors.js';

// A static pool's homes: one directory (a volume every worker mounts) with a home per computer, named by
// the computer's home key. The worker that serves a computer makes its home there the first time.

/** At start-up: the homes directory is there and this worker may make homes in it (a volume not mounted is not). */
export function assertHomesDir(homesDir: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(homesDir).isDirectory();
    if (isDirectory) accessSync(homesDir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(
      `LAZYBOY_HOMES_DIR ${homesDir} cannot be used (${code}): mount the homes volume there, writable by this worker's user`,
    );
  }
  if (!isDirectory) throw new ConfigError(`LAZYBOY_HOMES_DIR ${homesDir} is not a directory: mount the homes volume there`);
  // A root worker runs each computer as a user of its own: the directory then becomes root's and
  // unlistable (0711), so a computer reaches its own home by its path and learns no other home's name.
  if (process.getuid?.() === 0) {
    chownSync(homesDir, 0, 0);
    chmodSync(homesDir, 0o711);
  }
}

/**
 * `<homesDir>/<homeKey>`, made (0700: the desktop's user alone reads a home) when it is new. The key is
 * one path segment (homeKeySchema); a symbolic link in its place is refused, so no home points elsewhere.
 */
export function homeIn(homesDir: string, homeKey: string): string {
  const root = path.resolve(homesDir);
  const home = path.join(root, homeKey);
  if (path.dirname(home) !== root) throw new WorkerHttpError('VALIDATION_FAILED', 'the home key must name one directory');
  try {
    mkdirSync(home, { mode: 0o700 });
    // The umask may have taken bits away, never added any; said once more, plainly.
    chmodSync(home, 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw homeError(home, error);
  }
  let stat;
  try {
    stat = lstatSync(home);
  } catch (error) {
    throw homeError(home, error);
  }
  if (!stat.isDirectory()) {
    throw new WorkerHttpError('INTERNAL', `the computer's home ${home} is not a directory (a link or a file is in its place)`);
  }
  return home;
}

function homeError(home: string, error: unknown): WorkerHttpError {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new WorkerHttpError('INTERNAL', `cannot make the computer's home ${home} (${code}); check LAZYBOY_HOMES_DIR's owner`);
}
