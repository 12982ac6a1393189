import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

/**
 * Where a computer keeps its home and runtime state when nothing else says so. The home (Chromium
 * profiles, the person's files) must outlive the worker, so it goes under the data directory next to
 * Postgres and Redis (LAZYBOY_COMPUTER_HOME, by default `./data/homes/<id>` relative to where the worker is
 * started); the
 * runtime directory (X cookies, sockets, logs) is throwaway and short-pathed, since Unix socket paths
 * are limited to 108 bytes.
 */
export function defaultDesktopPaths(
  computerId: string,
  home: string | undefined,
  cwd = process.cwd(),
): { homeDir: string; runtimeDir: string } {
  const safeId = computerId.replace(/[^A-Za-z0-9._-]/g, '_');
  const homeDir = home ? path.resolve(cwd, home) : path.resolve(cwd, 'data', 'homes', safeId);
  // Keyed by the home too: two stacks on one host may both serve a computer called "local", and a
  // manager clears whatever it finds in its runtime directory at start.
  const key = createHash('sha256').update(homeDir).digest('hex').slice(0, 10);
  return { homeDir, runtimeDir: path.join(os.tmpdir(), `lazyboy-computer-${safeId}-${key}`) };
}
