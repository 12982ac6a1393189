import { describe, expect, it } from '@jest/globals';
import { createSerialQueue } from './serial-queue.js';
import { sleep } from '../../../test/support/index.js';

/** A promise settled from outside, to hold a task in flight for as long as a test needs. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets the queue's timers and promise callbacks run. */
const settle = () => sleep(0);

describe('createSerialQueue', () => {
  it('starts a task only once the one before it has settled', async () => {
    const queue = createSerialQueue();
    const started: string[] = [];
    const first = deferred<string>();
    const a = queue.run(() => {
      started.push('a');
      return first.promise;
    });
    const b = queue.run(() => {
      started.push('b');
      return Promise.resolve('b');
    });
    await settle();
    expect(started).toEqual(['a']);
    first.resolve('a');
    await expect(a).resolves.toBe('a');
    await expect(b).resolves.toBe('b');
    expect(started).toEqual(['a', 'b']);
  });

  it('goes on after a failed task, which still rejects for its caller', async () => {
    const queue = createSerialQueue();
    const first = deferred<string>();
    const failed = queue.run(() => first.promise);
    const next = queue.run(() => Promise.resolve('next'));
    first.reject(new Error('network'));
    await expect(failed).rejects.toThrow('network');
    await expect(next).resolves.toBe('next');
  });

  it('goes on after a task that throws before returning a promise', async () => {
    const queue = createSerialQueue();
    const failed = queue.run<string>(() => {
      throw new Error('sync');
    });
    await expect(failed).rejects.toThrow('sync');
    await expect(queue.run(() => Promise.resolve(1))).resolves.toBe(1);
  });
});
