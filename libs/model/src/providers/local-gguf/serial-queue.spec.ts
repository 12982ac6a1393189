import { describe, expect, it } from '@jest/globals';
import { SerialQueue } from './serial-queue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const aborted = (): Error => new Error('aborted while waiting');

describe('SerialQueue', () => {
  it('runs jobs one at a time, in order, also after a failure', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const gate = deferred();
    const first = queue.run(
      async () => {
        log.push('first starts');
        await gate.promise;
        log.push('first ends');
        throw new Error('first failed');
      },
      undefined,
      aborted,
    );
    const second = queue.run(async () => log.push('second runs'), undefined, aborted);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['first starts']);
    gate.resolve();
    await expect(first).rejects.toThrow('first failed');
    await second;
    expect(log).toEqual(['first starts', 'first ends', 'second runs']);
  });

  it('drops a job whose signal fires while it waits, without letting the next one jump ahead', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const gate = deferred();
    const running = queue.run(() => gate.promise.then(() => log.push('running ends')), undefined, aborted);
    const controller = new AbortController();
    const dropped = queue.run(async () => log.push('dropped ran'), controller.signal, aborted);
    const next = queue.run(async () => log.push('next runs'), undefined, aborted);
    controller.abort();
    await expect(dropped).rejects.toThrow('aborted while waiting');
    expect(log).toEqual([]);
    gate.resolve();
    await Promise.all([running, next]);
    expect(log).toEqual(['running ends', 'next runs']);
    await expect(queue.run(async () => 'never', AbortSignal.abort(), aborted)).rejects.toThrow('aborted while waiting');
  });
});
