import { setTimeout as sleepFor } from 'node:timers/promises';

// Waiting in tests: one way to poll and one way to pause, so no suite grows its own.

/** Resolves after `ms` (for pacing a scripted model or a loop; never as a stand-in for waiting on a state). */
export const sleep = (ms: number): Promise<void> => sleepFor(ms);

export interface UntilOptions {
  /** Default 30 s: generous for a 2-core machine under the whole suite. */
  timeoutMs?: number;
  /** Default 50 ms. */
  everyMs?: number;
}

/**
 * Polls `probe` until it gives a value (anything but undefined, null or false) and returns it; after
 * `timeoutMs` fails with "timed out waiting for <what>" and the last value or error seen.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { timeoutMs = 30_000, everyMs = 50 }: UntilOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${seen})`);
    }
    await sleepFor(everyMs);
  }
}
