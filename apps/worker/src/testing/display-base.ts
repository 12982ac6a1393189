import { findFreeDisplayBase } from '@lazyboy/desktop';

/** A free display base in this Jest worker's own range (parallel suites would otherwise race). */
export function testDisplayBase(count: number, offset = 0): number {
  const worker = Number(process.env.JEST_WORKER_ID ?? 0);
  return findFreeDisplayBase(count, 1_000 + worker * 1_000 + offset);
}
