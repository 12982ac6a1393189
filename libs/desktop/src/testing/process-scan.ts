import { readFileSync, readdirSync } from 'node:fs';

/** What a test needs to know about a process to decide whether it belongs to a computer. */
export interface ScannedProcess {
  pid: number;
  uid: number | undefined;
  state: string | undefined;
  cmdline: string;
  environ: string;
}

/** Every process on the host, read straight from /proc (independent of the code under test). */
export function scanProcesses(): ScannedProcess[] {
  const result: ScannedProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const stat = read(`/proc/${pid}/stat`);
    if (stat === undefined) continue;
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    if (state === 'Z') continue;
    const uid = /^Uid:\s+(\d+)/m.exec(read(`/proc/${pid}/status`) ?? '')?.[1];
    result.push({
      pid,
      uid: uid === undefined ? undefined : Number(uid),
      state,
      cmdline: (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' '),
      environ: (read(`/proc/${pid}/environ`) ?? '').split('\0').join('\n'),
    });
  }
  return result;
}

export function processState(pid: number): string | undefined {
  const stat = read(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

export function processUid(pid: number): number | undefined {
  const uid = /^Uid:\s+(\d+)/m.exec(read(`/proc/${pid}/status`) ?? '')?.[1];
  return uid === undefined ? undefined : Number(uid);
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
