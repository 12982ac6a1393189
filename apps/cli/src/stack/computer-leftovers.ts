import { readlinkSync } from 'node:fs';
import path from 'node:path';
import { clearComputerLeftovers, listPids, readEnviron, readProcStat } from '@lazyboy/desktop';
import { stopProcessGroup } from '@lazyboy/localstack';
import type { StackLayout } from './stack-layout.js';

type Print = (line: string) => void;

/** A leftover worker gets this long to stop its desktop itself (it continues a suspended one first). */
const WORKER_GRACE_MS = 5_000;

/**
 * Ends what the computers of this data directory left running once their API is gone: workers (an API that
 * was killed could not stop them; they keep their ports) and every desktop process, suspended (SIGSTOPped)
 * ones included, found by their homes under the data directory rather than by any recorded process group;
 * then their temporary folders (runtime directories, shell logs). Run when the stack is not running: by
 * `down`, by `up` before it starts and after it has stopped.
 */
export async function stopComputerLeftovers(layout: StackLayout, print: Print): Promise<void> {
  const workers = findWorkers(layout.homesDir);
  if (workers.length > 0) print(`stopping ${workers.length} computer worker(s) left over from an earlier run`);
  await Promise.all(workers.map((pid) => stopProcessGroup(pid, 'SIGTERM', WORKER_GRACE_MS)));
  const cleared = await clearComputerLeftovers({ homesDir: layout.homesDir });
  if (cleared.processes > 0) print(`ended ${cleared.processes} desktop process(es) left over from an earlier run`);
}

/**
 * Workers serving a home in `homesDir` (LAZYBOY_COMPUTER_HOME in their environment, relative to their
 * working directory as the worker reads it). Each leads its own process group (the pool driver starts it so).
 */
function findWorkers(homesDir: string): number[] {
  const root = path.resolve(homesDir);
  return listPids().filter((pid) => {
    const env = readEnviron(pid);
    const home = env?.get('LAZYBOY_COMPUTER_HOME');
    if (!home || !env?.has('LAZYBOY_COMPUTER_ID') || readProcStat(pid)?.pgid !== pid) return false;
    return path.dirname(path.resolve(workingDirectory(pid) ?? '/', home)) === root;
  });
}

function workingDirectory(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}
