import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** Size of a command's log; 0 while it does not exist yet. */
export function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

export interface LogSlice {
  text: string;
  /** Bytes between `from` and the returned text that were left out to respect the cap. */
  skipped: number;
}

/** Bytes [from, to) of the log, keeping only the last `maxBytes` of them. */
export function readLogSlice(file: string, from: number, to: number, maxBytes: number): LogSlice {
  if (to <= from) return { text: '', skipped: 0 };
  const start = Math.max(from, to - maxBytes);
  const buffer = Buffer.alloc(to - start);
  let read: number;
  const fd = openSync(file, 'r');
  try {
    read = readSync(fd, buffer, 0, buffer.length, start);
  } finally {
    closeSync(fd);
  }
  return { text: buffer.subarray(0, read).toString('utf8'), skipped: start - from };
}

/** The end of a log for a result, with a note naming the file when earlier output was left out. */
export function logTailText(file: string, maxBytes: number): string {
  const size = logSize(file);
  const { text, skipped } = readLogSlice(file, 0, size, maxBytes);
  return skipped > 0 ? `[… ${skipped} earlier bytes in ${file} …]\n${text}` : text;
}
