// A llama.cpp context sequence evaluates one prompt at a time, so a client's requests take turns.

/** Runs jobs one at a time, in the order they arrive. */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  /**
   * Runs `job` once every earlier job has settled. If `signal` fires while the job is still waiting, the
   * promise rejects at once with `onAbort()` and the job never runs.
   */
  run<T>(job: () => Promise<T>, signal: AbortSignal | undefined, onAbort: () => Error): Promise<T> {
    const previous = this.tail;
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    // The next job waits for this one and for everything before it, even if this one was dropped early.
    this.tail = previous.then(() => finished);
    return (async () => {
      try {
        await untilSettledOrAborted(previous, signal, onAbort);
        return await job();
      } finally {
        finish();
      }
    })();
  }
}

async function untilSettledOrAborted(turn: Promise<void>, signal: AbortSignal | undefined, onAbort: () => Error): Promise<void> {
  if (signal?.aborted) throw onAbort();
  if (!signal) return turn;
  let stopListening = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    const listener = (): void => reject(onAbort());
    signal.addEventListener('abort', listener, { once: true });
    stopListening = () => signal.removeEventListener('abort', listener);
  });
  try {
    await Promise.race([turn, aborted]);
  } finally {
    stopListening();
  }
}
