import { readFileSync, readdirSync } from 'node:fs';

/** One line of /proc/<pid>/stat that matters to us. */
export interface ProcStat {
  pid: number;
  /** R, S, D, T (stopped by a signal), Z (zombie), … */
  state: string;
  ppid: number;
  pgid: number;
}

export function listPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

export function readProcStat(pid: number): ProcStat | undefined {
  const text = readProc(pid, 'stat');
  if (text === undefined) return undefined;
  // The command name sits in parentheses and may itself contain spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, pgid] = fields;
  if (state === undefined || ppid === undefined || pgid === undefined) return undefined;
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid) };
}

/** A zombie has finished running; only its parent's bookkeeping keeps it in the table. */
export function processGone(pid: number): boolean {
  const stat = readProcStat(pid);
  return stat === undefined || stat.state === 'Z';
}

/** Real uid from /proc/<pid>/status. */
export function readUid(pid: number): number | undefined {
  const match = /^Uid:\s+(\d+)/m.exec(readProc(pid, 'status') ?? '');
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

export function readCmdline(pid: number): string[] | undefined {
  const text = readProc(pid, 'cmdline');
  return text === undefined ? undefined : text.split('\0').filter((part) => part !== '');
}

/** The environment a process was started with; undefined when it is gone or not ours to read. */
export function readEnviron(pid: number): Map<string, string> | undefined {
  const text = readProc(pid, 'environ');
  if (text === undefined) return undefined;
  const env = new Map<string, string>();
  for (const entry of text.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/** Private_Clean + Private_Dirty in bytes: memory that would be freed if the process went away. */
export function privateMemoryBytes(pid: number): number {
  const text = readProc(pid, 'smaps_rollup') ?? '';
  let kib = 0;
  for (const match of text.matchAll(/^Private_(?:Clean|Dirty):\s+(\d+) kB/gm)) kib += Number(match[1]);
  return kib * 1024;
}

/** Live (non-zombie) members of a process group. */
export function groupMembers(pgid: number): number[] {
  return listPids().filter((pid) => {
    const stat = readProcStat(pid);
    return stat !== undefined && stat.pgid === pgid && stat.state !== 'Z';
  });
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}
