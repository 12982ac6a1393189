import { createHash } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCommand } from '../process/run-command.js';
import { DesktopSetupError } from './errors.js';

/** The account a computer's whole desktop runs as. */
export interface DesktopUser {
  name: string;
  uid: number;
  gid: number;
  /** True when the worker is root and drops to this user (a system user of the computer's own). */
  dedicated: boolean;
}

const USER_NAME_MAX = 32;

/**
 * `lazyboy-<id>` when that is a valid, short enough Linux user name; otherwise a stable hash of the id,
 * so UUID-sized ids still map to one account each.
 */
export function desktopUserName(computerId: string): string {
  const name = `lazyboy-${computerId}`;
  if (/^[a-z0-9][a-z0-9_-]*$/.test(computerId) && name.length <= USER_NAME_MAX) return name;
  return `lazyboy-${createHash('sha256').update(computerId).digest('hex').slice(0, 16)}`;
}

/** Whether `name` is one `desktopUserName` makes: an account only a computer's desktop runs as. */
export function isDesktopUserName(name: string): boolean {
  return /^lazyboy-[a-z0-9][a-z0-9_-]*$/.test(name) && name.length <= USER_NAME_MAX;
}

export function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/** Where uids of homes in a shared homes directory are drawn from: above any distribution's and k8s pods' ranges. */
export const SHARED_HOME_UID_MIN = 1 << 20;
const SHARED_HOME_UID_SPAN = 2 ** 31 - SHARED_HOME_UID_MIN;

export interface DesktopUserOptions {
  /**
   * The home's directory holds other computers' homes whose users other workers (other containers, each
   * with a password file of its own) made: the uid then comes from the homes themselves
   * (`sharedHomeUid`), so that no two computers' homes share an owner and their modes keep them apart.
   */
  sharedHomes?: boolean;
}

/**
 * As root: the computer's own system user, created (home 0700) when missing, so that Chromium keeps its
 * sandbox and an agent's shell cannot reach other computers' files. Otherwise: the current user.
 */
export async function resolveDesktopUser(
  userName: string,
  homeDir: string,
  options: DesktopUserOptions = {},
): Promise<DesktopUser> {
  if (!runningAsRoot()) {
    const info = os.userInfo();
    return { name: info.username, uid: info.uid, gid: info.gid, dedicated: false };
  }
  const uid = options.sharedHomes ? sharedHomeUid(homeDir, userName) : undefined;
  const existing = await lookupUser(userName);
  if (existing) {
    // Programs that ask the password database instead of $HOME (dbus, GLib fallbacks) must find the same home.
    if (existing.home !== homeDir) await runCommand('usermod', ['--home', homeDir, userName]);
    if (uid !== undefined && existing.uid !== uid) {
      const changed = await runCommand('usermod', ['--uid', String(uid), userName]);
      if (changed.code !== 0) throw new DesktopSetupError(`usermod --uid ${uid} ${userName} failed: ${changed.stderr.trim()}`);
      return { ...withoutHome(existing), uid };
    }
    return withoutHome(existing);
  }
  // useradd fails while another useradd holds /etc/passwd's lock (several computers starting at once).
  for (let attempt = 1; ; attempt += 1) {
    const result = await runCommand('useradd', [
      '--system',
      '--user-group',
      '--create-home',
      '--home-dir',
      homeDir,
      '--shell',
      '/usr/sbin/nologin',
      '--comment',
      'LazyBoy computer desktop',
      // A uid of millions would make lastlog a sparse file of that many records.
      ...(uid === undefined ? [] : ['--uid', String(uid), '--no-log-init']),
      userName,
    ]);
    const created = await lookupUser(userName);
    if (created) return withoutHome(created);
    if (attempt >= 5) {
      throw new DesktopSetupError(`useradd ${userName} failed (code ${result.code}): ${result.stderr.trim()}`);
    }
    await sleep(200 * attempt);
  }
}

async function lookupUser(name: string): Promise<(DesktopUser & { home: string }) | undefined> {
  const result = await runCommand('getent', ['passwd', name]);
  if (result.code !== 0) return undefined;
  const [, , uid, gid, , home] = result.stdout.trim().split(':');
  if (uid === undefined || gid === undefined || home === undefined) return undefined;
  return { name, uid: Number(uid), gid: Number(gid), dedicated: true, home };
}

function withoutHome({ name, uid, gid, dedicated }: DesktopUser & { home: string }): DesktopUser {
  return { name, uid, gid, dedicated };
}

/**
 * The uid of a computer whose home lies in a shared homes directory: its home's owner when that is one of
 * these uids and no other home's, else one drawn from the user name's hash and moved past the owners of
 * the directory's other entries. Two workers making two new homes at the very same moment could draw the
 * same uid only if both hashes land on it (about one in two billion).
 */
export function sharedHomeUid(homeDir: string, userName: string): number {
  const parent = path.dirname(homeDir);
  const own = path.basename(homeDir);
  const taken = new Set<number>();
  for (const name of readdirSync(parent)) {
    if (name === own) continue;
    try {
      taken.add(lstatSync(path.join(parent, name)).uid);
    } catch {
      // removed meanwhile
    }
  }
  try {
    const owner = lstatSync(homeDir).uid;
    if (owner >= SHARED_HOME_UID_MIN && !taken.has(owner)) return owner;
  } catch {
    // a new home
  }
  const hash = createHash('sha256').update(userName).digest().readUInt32BE(0);
  let offset = hash % SHARED_HOME_UID_SPAN;
  while (taken.has(SHARED_HOME_UID_MIN + offset)) offset = (offset + 1) % SHARED_HOME_UID_SPAN;
  return SHARED_HOME_UID_MIN + offset;
}
