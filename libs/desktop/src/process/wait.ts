import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** Cancels the wait (a stop, or the boot's overall deadline). */
  signal: AbortSignal;
  intervalMs?: number;
  /** Checked before each probe: a reason to give up now (typically "the process died"). */
  failIf?: () => Error | undefined;
}

/** Polls `probe` until it returns a value. There is no own deadline: the caller's signal carries it. */
export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, options: WaitOptions): Promise<T> {
  for (;;) {
    options.signal.throwIfAborted();
    const failure = options.failIf?.();
    if (failure) throw failure;
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(options.intervalMs ?? 50, undefined, { signal: options.signal });
  }
}

/** Resolves once `condition` holds or `timeoutMs` has passed; returns whether it holds. */
export async function pollUntil(condition: () => boolean, timeoutMs: number, intervalMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
  return true;
}
