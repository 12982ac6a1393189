import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const RUNTIME_PREFIX = 'lazyboy-computer-';
const SHELL_LOG_SUFFIX = '-shell';

/** The short key of a home in its computer's temporary folders' names (one home, one key). */
function homeKey(homeDir: string): string {
  return createHash('sha256').update(path.resolve(homeDir)).digest('hex').slice(0, 10);
}

/**
 * A computer's runtime directory (X cookies, sockets, the desktop's logs): throwaway and short-pathed,
 * since Unix socket paths are limited to 108 bytes. Keyed by the home too: two stacks on one host may both
 * serve a computer called "local", and a manager clears whatever it finds in its runtime directory at start.
 */
export function computerRuntimeDir(computerId: string, homeDir: string, tmpDir = os.tmpdir()): string {
  const safeId = computerId.replace(/[^A-Za-z0-9._-]/g, '_');
  return path.join(tmpDir, `${RUNTIME_PREFIX}${safeId}-${homeKey(homeDir)}`);
}

/** Where the worker keeps the agent's shell logs: beside the runtime directory, outside the home and the sandbox. */
export function shellLogRoot(runtimeDir: string): string {
  return `${runtimeDir}${SHELL_LOG_SUFFIX}`;
}

/**
 * The temporary folders (runtime directories and shell-log folders) that exist for a home, whichever
 * computer id made them: what a worker that did not get to dispose its computer leaves behind.
 */
export function computerTempDirs(homeDir: string, tmpDir = os.tmpdir()): string[] {
  const key = homeKey(homeDir);
  let names: string[];
  try {
    names = readdirSync(tmpDir);
  } catch {
    return [];
  }
  return names
    .filter(
      (name) => name.startsWith(RUNTIME_PREFIX) && (name.endsWith(`-${key}`) || name.endsWith(`-${key}${SHELL_LOG_SUFFIX}`)),
    )
    .map((name) => path.join(tmpDir, name));
}
