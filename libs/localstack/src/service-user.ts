import { execFileSync } from 'node:child_process';
import { chownSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export interface ServiceUser {
  uid: number;
  gid: number;
}

/**
 * The system account a server should run as. Postgres refuses to run as root, and nothing else
 * should either; when LazyBoy itself is not root, servers simply run as the current user.
 */
export function serviceUser(name: string): ServiceUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(`running as root needs the system user '${name}' (installed with its Debian package)`);
  }
}

/** chown -R, skipping work when the tree already belongs to the user. */
export function chownTree(dir: string, user: ServiceUser | undefined): void {
  if (!user) return;
  const stat = statSync(dir);
  if (stat.uid !== user.uid || stat.gid !== user.gid) chownSync(dir, user.uid, user.gid);
  if (!stat.isDirectory()) return;
  for (const entry of readdirSync(dir)) chownTree(path.join(dir, entry), user);
}
