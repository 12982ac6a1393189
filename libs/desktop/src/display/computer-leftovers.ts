import { lstatSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { stopProcesses } from '../process/desktop-process.js';
import { computerTempDirs } from './computer-paths.js';
import { desktopUserOwning, findComputerProcesses, homesOf, type ComputerScope } from './desktop-processes.js';

/** A leftover gets this long after SIGTERM (and SIGCONT: a suspended one only acts on it once running again). */
const LEFTOVER_GRACE_MS = 1_000;
/** Chromium's zygotes fork while they shut down: a few rounds of look-and-stop. */
const ROUNDS = 5;

export interface ClearedLeftovers {
  /** How many processes were ended. */
  processes: number;
  /** Temporary folders removed (runtime directories, shell logs, Chromium's /tmp folders). */
  folders: string[];
}

/**
 * Ends every process of the computers in `scope` — suspended (SIGSTOPped) ones included — and removes their
 * temporary folders. For what a worker that was killed, or a stack that was, left behind: the computers'
 * workers must be gone already, or they would start new processes and use the folders meanwhile.
 */
export async function clearComputerLeftovers(scope: ComputerScope, tmpDir?: string): Promise<ClearedLeftovers> {
  const ended = new Set<number>();
  for (let round = 0; round < ROUNDS; round += 1) {
    const pids = findComputerProcesses(scope);
    if (pids.length === 0) break;
    for (const pid of pids) ended.add(pid);
    await stopProcesses(pids, LEFTOVER_GRACE_MS);
  }
  const folders: string[] = [];
  for (const home of homesOf(scope)) {
    for (const dir of computerTempDirs(home, tmpDir)) {
      rmSync(dir, { recursive: true, force: true });
      folders.push(dir);
    }
    const uid = desktopUserOwning(home);
    if (uid !== undefined) folders.push(...removeChromiumTempFoldersOf(uid));
  }
  return { processes: ended.size, folders };
}

/** Where the desktop's programs keep temporary files: they get no TMPDIR of their own. */
const DESKTOP_TMP = '/tmp';
/** Chromium's process-singleton folders (SingletonSocket, SingletonCookie) and its hidden files of that name. */
const CHROMIUM_TEMP = /^\.?org\.chromium\.Chromium\./;

/**
 * Chromium makes its folders under /tmp, not in the runtime directory: a socket path there would pass the
 * 108-byte limit. Only what the computer's own user owns is removed, so another computer is never touched.
 */
export function removeChromiumTempFoldersOf(uid: number): string[] {
  let names: string[];
  try {
    names = readdirSync(DESKTOP_TMP);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!CHROMIUM_TEMP.test(name)) continue;
    const entry = path.join(DESKTOP_TMP, name);
    try {
      if (lstatSync(entry).uid !== uid) continue;
      rmSync(entry, { recursive: true, force: true });
      removed.push(entry);
    } catch {
      // Gone meanwhile, or not ours to remove: nothing to clean.
    }
  }
  return removed;
}
