import { existsSync, readFileSync } from 'node:fs';
import { processGone } from '../process/proc-table.js';

/** Slot N of a computer is X display :(base + N + 1); with base 0, slot 0 is :1 (the product convention). */
export function displayNumberForSlot(slot: number, displayBase: number): number {
  return displayBase + slot + 1;
}

export function xLockFile(display: number): string {
  return `/tmp/.X${display}-lock`;
}

export function xSocketFile(display: number): string {
  return `/tmp/.X11-unix/X${display}`;
}

/** The pid of the X server holding `display`, or undefined when its lock file is absent or stale. */
export function xServerHolding(display: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(xLockFile(display), 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 && !processGone(pid) ? pid : undefined;
}

/** Free means no lock file and no socket: a stale pair left by a killed server also counts as taken. */
export function displayLooksFree(display: number): boolean {
  return !existsSync(xLockFile(display)) && !existsSync(xSocketFile(display));
}

/**
 * The first base at or above `from` whose `count` displays (base+1 … base+count) all look free. Tests and
 * several computers on one host use it to keep out of each other's way.
 */
export function findFreeDisplayBase(count: number, from = 100, to = 60_000): number {
  for (let base = from; base + count < to; base += 1) {
    let free = true;
    for (let slot = 0; slot < count && free; slot += 1) free = displayLooksFree(displayNumberForSlot(slot, base));
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free X displays between :${from} and :${to}`);
}
