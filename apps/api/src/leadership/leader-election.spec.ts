import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { LeaderElection } from './leader-election.js';
import { leaderKey } from './leadership.service.js';
import { until, sleep } from '../../../../test/support/index.js';

describe('LeaderElection (real Redis)', () => {
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  });

  afterAll(() => {
    redis.disconnect();
  });

  it('lets exactly one of two contenders lead, and the other take over when the first stops', async () => {
    const key = `lazyboy:test:leader:${randomUUID()}`;
    const first = new LeaderElection(redis, { key, ttlMs: 600, owner: 'first' });
    const second = new LeaderElection(redis, { key, ttlMs: 600, owner: 'second' });
    const changes: string[] = [];
    first.onChange((leading) => changes.push(`first:${leading}`));
    second.onChange((leading) => changes.push(`second:${leading}`));
    first.start();
    await until('the first to lead', () => first.isLeader, { timeoutMs: 5_000, everyMs: 20 });
    second.start();
    // Several renewal periods: the lead stays where it is.
    await sleep(1_500);
    expect([first.isLeader, second.isLeader]).toEqual([true, false]);
    expect(await redis.get(key)).toBe('first');
    const firstSignal = first.signal;

    await first.stop();
    expect(first.isLeader).toBe(false);
    expect(firstSignal.aborted).toBe(true);
    await until('the second to take over', () => second.isLeader, { timeoutMs: 3_000, everyMs: 20 });
    expect(await redis.get(key)).toBe('second');
    expect(changes).toEqual(['first:true', 'first:false', 'second:true']);
    await second.stop();
    expect(await redis.get(key)).toBeNull();
  }, 15_000);

  it('gives the lead up when its key is taken away, without extending the new owner', async () => {
    const key = `lazyboy:test:leader:${randomUUID()}`;
    const election = new LeaderElection(redis, { key, ttlMs: 600, owner: 'old' });
    election.start();
    await until('leading', () => election.isLeader, { timeoutMs: 5_000, everyMs: 20 });
    // Another replica owns the key now (as after a network partition outlasting the TTL).
    await redis.set(key, 'usurper', 'PX', 60_000);
    await until('no longer leading', () => !election.isLeader, { timeoutMs: 2_000, everyMs: 20 });
    expect(await redis.get(key)).toBe('usurper');
    await election.stop();
    expect(await redis.get(key)).toBe('usurper');
    await redis.del(key);
  }, 10_000);

  it('elects per database: replicas of other databases do not share a leader', () => {
    const a = leaderKey('maintenance', 'postgresql://u:p@127.0.0.1:5432/one');
    expect(leaderKey('maintenance', 'postgresql://other:secret@127.0.0.1:5432/one')).toBe(a);
    expect(leaderKey('maintenance', 'postgresql://u:p@127.0.0.1:5432/two')).not.toBe(a);
    expect(a).not.toContain('p@');
  });
});
