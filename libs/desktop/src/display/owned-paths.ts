import { chmodSync, chownSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunAs } from '../process/run-as.js';
import { DesktopSetupError } from './errors.js';

/**
 * mkdir -p that gives `dir` (and every directory it creates inside `ownedFrom`, by default only `dir`) to
 * `owner` with `mode`. Parents outside `ownedFrom` are created 0755 by whoever runs the worker, so a shared
 * parent such as /var/lib/lazyboy never ends up belonging to one computer's user.
 */
export function ensureOwnedDir(dir: string, owner: RunAs | undefined, mode: number, ownedFrom: string = dir): void {
  const firstCreated = mkdirSync(dir, { recursive: true, mode: 0o755 });
  const created = firstCreated ? [firstCreated, ...descendantsOnPath(firstCreated, dir)] : [];
  for (const entry of created) {
    if (entry === dir || !isInside(entry, ownedFrom)) continue;
    if (owner) chownIfNeeded(entry, owner);
    chmodSync(entry, mode);
  }
  if (owner) chownIfNeeded(dir, owner);
  chmodSync(dir, mode);
}

export function writeOwnedFile(file: string, content: string, owner: RunAs | undefined, mode = 0o600): void {
  writeFileSync(file, content, { mode });
  if (owner) chownSync(file, owner.uid, owner.gid);
}

/** chown -R, skipping the walk when the top already belongs to the owner (homes can be large). */
export function chownTreeIfNeeded(dir: string, owner: RunAs): void {
  const stat = statSync(dir);
  if (stat.uid === owner.uid && stat.gid === owner.gid) return;
  chownTree(dir, owner);
}

/**
 * The desktop user must be able to walk down to `dir` (search permission on every ancestor), or Xvfb
 * cannot read its cookie and Chromium cannot open its profile. Fails with a message that says which one.
 */
export function assertReachableBy(dir: string, owner: RunAs, userName: string): void {
  for (let current = path.dirname(path.resolve(dir)); ; current = path.dirname(current)) {
    const stat = statSync(current);
    const bit = stat.uid === owner.uid ? 0o100 : stat.gid === owner.gid ? 0o010 : 0o001;
    if ((stat.mode & bit) === 0) {
      throw new DesktopSetupError(
        `the desktop user ${userName} cannot reach ${dir}: ${current} (mode ${(stat.mode & 0o777).toString(8)}, ` +
          `owner uid ${stat.uid}) is not searchable for it; use chmod o+x on it or choose another directory`,
      );
    }
    if (current === path.dirname(current)) return;
  }
}

function chownTree(target: string, owner: RunAs): void {
  chownIfNeeded(target, owner);
  if (!statSync(target).isDirectory()) return;
  for (const entry of readdirSync(target)) chownTree(path.join(target, entry), owner);
}

function chownIfNeeded(target: string, owner: RunAs): void {
  const stat = statSync(target);
  if (stat.uid !== owner.uid || stat.gid !== owner.gid) chownSync(target, owner.uid, owner.gid);
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function descendantsOnPath(from: string, to: string): string[] {
  const rest = path.relative(from, to);
  if (!rest) return [];
  const result: string[] = [];
  let current = from;
  for (const part of rest.split(path.sep)) {
    current = path.join(current, part);
    result.push(current);
  }
  return result;
}
