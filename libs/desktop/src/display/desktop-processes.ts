import { listPids, readCmdline, readEnviron } from '../process/proc-table.js';
import { RUNTIME_MARKER, SLOT_MARKER } from './desktop-env.js';

export interface DesktopProcessQuery {
  runtimeDir: string;
  /** Only this screen's processes; all of the computer's when absent. */
  slot?: number;
  /**
   * Chromium processes whose --user-data-dir is this directory (or lies under it, with a trailing '/').
   * Chromium writes its process title over its environment, so its markers cannot be read back.
   */
  chromiumProfile?: string;
}

/**
 * Every process started for a computer (or one of its screens): found by the markers in their environment
 * and by Chromium's profile directory on its command line. Processes whose environment we may not read
 * (sandboxed children when not root) are still reached through their process groups.
 */
export function findDesktopProcesses(query: DesktopProcessQuery): number[] {
  const self = process.pid;
  return listPids().filter((pid) => pid !== self && (hasMarkers(pid, query) || usesProfile(pid, query.chromiumProfile)));
}

function hasMarkers(pid: number, query: DesktopProcessQuery): boolean {
  const env = readEnviron(pid);
  if (env?.get(RUNTIME_MARKER) !== query.runtimeDir) return false;
  return query.slot === undefined || env.get(SLOT_MARKER) === String(query.slot);
}

function usesProfile(pid: number, profile: string | undefined): boolean {
  if (profile === undefined) return false;
  // Chromium also rewrites its argv as one space-separated title, so match within the joined command line.
  const commandLine = `${(readCmdline(pid) ?? []).join(' ')} `;
  const flag = `--user-data-dir=${profile}`;
  return commandLine.includes(profile.endsWith('/') ? flag : `${flag} `);
}
