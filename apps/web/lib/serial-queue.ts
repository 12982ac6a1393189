/**
 * Runs async tasks strictly one after another, in the order they were handed in. Used for a chat's
 * message posts: the API stores messages in the order it receives them, so two posts in flight at once
 * could be stored the wrong way round.
 */
export interface SerialQueue {
  /** Starts `task` once every task handed in before it has settled; resolves or rejects as it does. */
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      const result = tail.then(task);
      // A failed task is its caller's to report; the ones queued behind it still go.
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
