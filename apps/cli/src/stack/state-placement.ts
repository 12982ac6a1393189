import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where a private data directory's shared state goes by default (LAZYBOY_STATE_DIR). */
export const DEFAULT_STATE_ROOT = '/var/lib/lazyboy';
/** In the data directory: where its shared state lives, once it had to move out. */
const RECORD_FILE = 'state-dir';
/** In the shared state directory: the data directory it belongs to. */
const BACK_REFERENCE_FILE = 'data-dir';

/** The state directory cannot be used: `up` stops before starting anything, with this one line. */
export class StateDirError extends Error {
  override readonly name = 'StateDirError';
}

export interface StatePlacement {
  /** Postgres, Redis and the computers' homes: what the servers' and computers' own users must reach. */
  stateDir: string;
  /** True when it is not the data directory itself (the data directory is private to root). */
  relocated: boolean;
}

export interface StatePlacementOptions {
  /** Whether the servers and desktops run as their own users (as root); otherwise all is one user's. */
  asRoot: boolean;
  /** Parent of relocated state directories (LAZYBOY_STATE_DIR). */
  stateRoot: string;
}

/**
 * Where a data directory keeps the state its servers' and computers' own system users must reach. As
 * root, Postgres, Redis and each computer's desktop run as users of their own, who cannot pass through a
 * 0700 directory such as /root or a `mktemp -d`: the data directory is then kept private (secrets, logs,
 * the stack's state) and that state moves to `<stateRoot>/<key>`, recorded in the data directory so that
 * it follows a moved checkout. Nothing the user made is ever made more permissive. Read-only: `up` makes
 * the directory with `prepareStateDir`; `down` and `status` only look.
 */
export function placeState(dataDir: string, options: StatePlacementOptions): StatePlacement {
  const root = path.resolve(dataDir);
  const recorded = readRecord(root);
  if (recorded) return { stateDir: recorded, relocated: true };
  // Not root: every process is this user's. A cluster an earlier version made here was reachable then.
  if (!options.asRoot || existsSync(path.join(root, 'postgres'))) return { stateDir: root, relocated: false };
  if (walkableByAll(root)) return { stateDir: root, relocated: false };
  const key = createHash('sha256').update(root).digest('hex').slice(0, 16);
  return { stateDir: path.join(path.resolve(options.stateRoot), key), relocated: true };
}

/**
 * Makes the data directory (0755 when its state stays in it, since the service users walk through it;
 * 0700 when that state moved out) and the state directory, and records where the state went. Throws a
 * StateDirError naming what to do when the state directory cannot be reached or belongs to another data
 * directory.
 */
export function prepareStateDir(dataDir: string, placement: StatePlacement): void {
  const root = path.resolve(dataDir);
  if (!placement.relocated) {
    mkdirSync(root, { recursive: true, mode: 0o755 });
    return;
  }
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const { stateDir } = placement;
  const owner = readBackReference(stateDir);
  // Another data directory that still points here: two stacks must never share one database.
  if (owner && owner !== root && readRecord(owner) === stateDir) {
    throw new StateDirError(`${stateDir} holds the state of ${owner}; set LAZYBOY_STATE_DIR to another directory for ${root}`);
  }
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o755 });
  } catch (error) {
    throw new StateDirError(
      `cannot make ${stateDir} (${(error as Error).message}); set LAZYBOY_STATE_DIR to a directory root can write`,
    );
  }
  if (!walkableByAll(stateDir)) {
    throw new StateDirError(
      `${stateDir} is not reachable by the postgres, redis and computer users (a directory on its path is not ` +
        `executable by others); set LAZYBOY_STATE_DIR to a path every user can enter, such as ${DEFAULT_STATE_ROOT}`,
    );
  }
  writeFileSync(path.join(stateDir, BACK_REFERENCE_FILE), `${root}\n`, { mode: 0o644 });
  writeFileSync(path.join(root, RECORD_FILE), `${stateDir}\n`, { mode: 0o600 });
}

/**
 * Whether every directory on the path that exists lets others pass (o+x); what does not exist yet will
 * be made 0755. ACLs and group bits are not counted: the service users are in no group of the caller.
 */
export function walkableByAll(dir: string): boolean {
  let current = path.resolve(dir);
  for (;;) {
    try {
      if ((statSync(current).mode & 0o001) === 0) return false;
    } catch {
      // Not made yet.
    }
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

function readRecord(dataDir: string): string | undefined {
  return readPath(path.join(dataDir, RECORD_FILE));
}

function readBackReference(stateDir: string): string | undefined {
  return readPath(path.join(stateDir, BACK_REFERENCE_FILE));
}

function readPath(file: string): string | undefined {
  try {
    const value = readFileSync(file, 'utf8').trim();
    return path.isAbsolute(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
