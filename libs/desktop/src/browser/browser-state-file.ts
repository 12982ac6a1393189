import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir, realpath, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { BrowserStateError } from '../display/errors.js';
import type { RunAs } from '../process/run-as.js';
import { MAX_BROWSER_STATE_BYTES, parseBrowserState, type SavedBrowserState } from './browser-state.js';

/**
 * The saved tabs and cookies of one profile, in its own folder (under the home's `.lazyboy`, which the
 * agent's shell and file tools never see), 0600 and owned like the profile. Chromium ignores a file it
 * does not know in its user data directory.
 */
export const BROWSER_STATE_FILE = 'lazyboy-browser-state.json';
const TEMPORARY_SUFFIX = '.tmp';

/** Where one profile's state lives and whom it belongs to. */
export interface BrowserStatePlace {
  /** Chromium's --user-data-dir. */
  profileDir: string;
  /** The home the profile lies in: the profile must really be there (see assertProfileInHome). */
  homeDir: string;
  /** The computer's user when the worker is root; otherwise the worker's own user owns everything. */
  owner: RunAs | undefined;
}

export function browserStateFile(place: BrowserStatePlace): string {
  return path.join(place.profileDir, BROWSER_STATE_FILE);
}

/**
 * The saved state, or undefined when there is none. The folder belongs to the computer's user while the
 * worker may be root, so the file is opened without following a link, must be a plain file of the
 * profile's owner, and is read only up to the bound; anything else is a BrowserStateError.
 */
export async function readBrowserStateFile(place: BrowserStatePlace): Promise<SavedBrowserState | undefined> {
  await assertProfileInHome(place);
  const file = browserStateFile(place);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO put in the file's place must not hang the worker in open().
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    if (errorCode(error) === 'ELOOP') throw new BrowserStateError(`${file} is a symbolic link`);
    throw new BrowserStateError(`cannot open ${file}: ${errorMessage(error)}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new BrowserStateError(`${file} is not a plain file`);
    const ownerUid = place.owner?.uid ?? process.getuid?.();
    if (ownerUid !== undefined && stat.uid !== ownerUid) {
      throw new BrowserStateError(`${file} belongs to uid ${stat.uid}, not to the profile's owner ${ownerUid}`);
    }
    if (stat.size > MAX_BROWSER_STATE_BYTES) {
      throw new BrowserStateError(`${file} is larger than ${MAX_BROWSER_STATE_BYTES} bytes (${stat.size})`);
    }
    // One byte past its size: a file that grew since fstat (someone writing it) is refused as well.
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_BROWSER_STATE_BYTES) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > stat.size) throw new BrowserStateError(`${file} grew while it was read`);
    return parseBrowserState(buffer.subarray(0, length).toString('utf8'));
  } finally {
    await handle.close();
  }
}

/**
 * Replaces the file at once (a temporary name of its own, then rename): a worker killed half-way leaves
 * the previous state whole, never half a file.
 */
export async function writeBrowserStateFile(place: BrowserStatePlace, text: string): Promise<void> {
  await assertProfileInHome(place);
  const file = browserStateFile(place);
  const temporary = `${file}.${randomBytes(6).toString('hex')}${TEMPORARY_SUFFIX}`;
  try {
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await handle.writeFile(text);
      if (place.owner) await handle.chown(place.owner.uid, place.owner.gid);
      await handle.chmod(0o600);
      // Without it a host that loses power right after the rename may keep an empty file.
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw new BrowserStateError(`cannot write ${file}: ${errorMessage(error)}`);
  }
}

/** Temporary files a killed worker left half-written. */
export async function removeStaleTemporaries(place: BrowserStatePlace): Promise<void> {
  const names = await readdir(place.profileDir).catch(() => [] as string[]);
  const stale = names.filter((name) => name.startsWith(`${BROWSER_STATE_FILE}.`) && name.endsWith(TEMPORARY_SUFFIX));
  await Promise.all(stale.map((name) => rm(path.join(place.profileDir, name), { force: true }).catch(() => undefined)));
}

/**
 * The profile's folders belong to the computer's user, who could swap one for a link to elsewhere (to
 * have a root worker write or read there): the profile's real path must be its place in the real home.
 */
async function assertProfileInHome(place: BrowserStatePlace): Promise<void> {
  const relative = path.relative(place.homeDir, place.profileDir);
  const [home, profile] = await Promise.all([realpath(place.homeDir), realpath(place.profileDir)]).catch((error: unknown) => {
    throw new BrowserStateError(`cannot resolve ${place.profileDir}: ${errorMessage(error)}`);
  });
  if (relative.startsWith('..') || path.isAbsolute(relative) || profile !== path.join(home, relative)) {
    throw new BrowserStateError(`${place.profileDir} is not a folder of ${place.homeDir} (it resolves to ${profile})`);
  }
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
