import { findFreeDisplayBase } from '../display/display-numbers.js';

/**
 * A free display base for a test suite. Suites run in parallel Jest workers and look for free numbers at
 * the same moment, so each worker searches its own range (a look at /tmp/.X11-unix alone would race).
 */
export function testDisplayBase(count: number, offset = 0): number {
  const worker = Number(process.env.JEST_WORKER_ID ?? 0);
  return findFreeDisplayBase(count, 1_000 + worker * 1_000 + offset);
}
