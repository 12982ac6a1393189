import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { listPids, processGone, readCmdline, readEnviron, readUid } from '../process/proc-table.js';
import { profileRootFor } from './chromium.js';
import { HOME_MARKER, RUNTIME_MARKER, SLOT_MARKER } from './desktop-env.js';
import { isDesktopUserName } from './desktop-user.js';

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

/** One computer by its home, or every computer whose home lies directly in `homesDir` (a data directory's). */
export type ComputerScope = { home: string } | { homesDir: string };

/**
 * Every live process of the computers in `scope`, found without their worker or runtime directory (for
 * a worker that was killed, or a stack that was): the home's marker, Chromium's profile under the home, and
 * when the desktops run as computers' own users, whatever those users run. Zombies are left out.
 */
export function findComputerProcesses(scope: ComputerScope): number[] {
  const inScope = homeMatcher(scope);
  const homes = homesOf(scope);
  const profiles = homes.map(profileRootFor);
  const users = new Set(homes.flatMap((home) => desktopUserOwning(home) ?? []));
  const self = process.pid;
  return listPids().filter((pid) => {
    if (pid === self || processGone(pid)) return false;
    const uid = readUid(pid);
    if (uid !== undefined && users.has(uid)) return true;
    const home = readEnviron(pid)?.get(HOME_MARKER);
    if (home !== undefined && inScope(home)) return true;
    return profiles.some((profile) => usesProfile(pid, profile));
  });
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

function homeMatcher(scope: ComputerScope): (home: string) => boolean {
  if ('home' in scope) {
    const home = path.resolve(scope.home);
    return (candidate) => path.resolve(candidate) === home;
  }
  const homesDir = path.resolve(scope.homesDir);
  return (candidate) => path.dirname(path.resolve(candidate)) === homesDir;
}

/** The homes in scope that exist on disk. */
export function homesOf(scope: ComputerScope): string[] {
  if ('home' in scope) return [path.resolve(scope.home)];
  const homesDir = path.resolve(scope.homesDir);
  try {
    return readdirSync(homesDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join(homesDir, entry.name));
  } catch {
    return [];
  }
}

/**
 * The uid of the computer's own system user, when the home belongs to one: never root, never whoever runs
 * this (a desktop that runs as the current user shares its uid with everything else of that user).
 */
export function desktopUserOwning(home: string): number | undefined {
  let uid: number;
  try {
    uid = lstatSync(home).uid;
  } catch {
    return undefined;
  }
  if (uid === 0 || uid === process.getuid?.()) return undefined;
  const name = userNameOf(uid);
  return name !== undefined && isDesktopUserName(name) ? uid : undefined;
}

function userNameOf(uid: number): string | undefined {
  let passwd: string;
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of passwd.split('\n')) {
    const [name, , id] = line.split(':');
    if (name && id === String(uid)) return name;
  }
  return undefined;
}
