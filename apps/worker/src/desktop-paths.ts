import path from 'node:path';
import { computerRuntimeDir } from '@lazyboy/desktop';

/**
 * Where a computer keeps its home and runtime state when nothing else says so. The home (Chromium
 * profiles, the person's files) must outlive the worker, so it goes under the data directory next to
 * Postgres and Redis (LAZYBOY_COMPUTER_HOME, by default `./data/homes/<id>` relative to where the worker is
 * started); the runtime directory (X cookies, sockets, logs) is throwaway, in the temporary directory
 * (`computerRuntimeDir`).
 */
export function defaultDesktopPaths(
  computerId: string,
  home: string | undefined,
  cwd = process.cwd(),
): { homeDir: string; runtimeDir: string } {
  const safeId = computerId.replace(/[^A-Za-z0-9._-]/g, '_');
  const homeDir = home ? path.resolve(cwd, home) : path.resolve(cwd, 'data', 'homes', safeId);
  return { homeDir, runtimeDir: computerRuntimeDir(computerId, homeDir) };
}
