import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { addressKey, attemptCooldown, cooldownKeys, resetCooldown, type CooldownPolicy } from './rate-windows.js';

describe('addressKey', () => {
  it('counts IPv4 addresses one by one', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('::ffff:203.0.113.9');
  });

  it('counts an IPv6 client by its /64, however it writes the address', () => {
    const key = addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    expect(key).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002::1')).toBe(key);
    expect(addressKey('2001:DB8:1:2:ffff::')).toBe(key);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1')).toBe('fe80:0:0:0::/64');
  });

  it('leaves what is not an address as it is', () => {
    expect(addressKey('unknown')).toBe('unknown');
  });
});

describe('escalating cool-downs (real Redis)', () => {
  const policy: CooldownPolicy = { freeAttempts: 3, firstWaitSeconds: 60, maxWaitSeconds: 300, memorySeconds: 3_600 };
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  });
  afterAll(() => redis.disconnect());

  /** The wait running out, without sleeping through it: its key is what Redis would expire. */
  const waitRunsOut = (name: string) => redis.del(cooldownKeys(name)[1]);

  it('lets the free attempts go on, then makes each next one wait twice as long, up to the cap', async () => {
    const name = `test:${randomUUID()}`;
    const attempts = [];
    for (let i = 0; i < policy.freeAttempts; i++) attempts.push(await attemptCooldown(redis, name, policy));
    expect(attempts).toEqual([
      { allowed: true, count: 1, waitSeconds: 0 },
      { allowed: true, count: 2, waitSeconds: 0 },
      { allowed: true, count: 3, waitSeconds: 60 },
    ]);
    const waits = [];
    for (let i = 0; i < 4; i++) {
      const refused = await attemptCooldown(redis, name, policy);
      expect(refused).toEqual({ allowed: false, retryAfterSeconds: expect.any(Number) });
      if (!refused.allowed) expect(refused.retryAfterSeconds).toBeLessThanOrEqual(policy.maxWaitSeconds);
      await waitRunsOut(name);
      const next = await attemptCooldown(redis, name, policy);
      waits.push(next.allowed ? next.waitSeconds : -1);
    }
    expect(waits).toEqual([120, 240, 300, 300]);
    // The count is forgotten a while after the last attempt, not kept forever.
    const ttl = await redis.pttl(cooldownKeys(name)[0]);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(policy.memorySeconds * 1_000);
  });

  it('counts no attempt refused during a wait, so knocking cannot stretch it', async () => {
    const name = `test:${randomUUID()}`;
    for (let i = 0; i < policy.freeAttempts; i++) await attemptCooldown(redis, name, policy);
    const refusals = await Promise.all(Array.from({ length: 20 }, () => attemptCooldown(redis, name, policy)));
    expect(refusals.every((attempt) => !attempt.allowed)).toBe(true);
    await waitRunsOut(name);
    expect(await attemptCooldown(redis, name, policy)).toEqual({ allowed: true, count: 4, waitSeconds: 120 });
  });

  it('lets a burst in parallel have the free attempts and no more', async () => {
    const name = `test:${randomUUID()}`;
    const burst = await Promise.all(Array.from({ length: 12 }, () => attemptCooldown(redis, name, policy)));
    expect(burst.filter((attempt) => attempt.allowed)).toHaveLength(policy.freeAttempts);
  });

  it('starts over after a reset', async () => {
    const name = `test:${randomUUID()}`;
    for (let i = 0; i < policy.freeAttempts; i++) await attemptCooldown(redis, name, policy);
    await resetCooldown(redis, name);
    expect(await attemptCooldown(redis, name, policy)).toEqual({ allowed: true, count: 1, waitSeconds: 0 });
  });
});
