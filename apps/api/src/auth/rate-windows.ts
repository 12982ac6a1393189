import { isIPv6 } from 'node:net';
import type { Redis } from 'ioredis';
import { ApiError } from '../common/api-error.js';

// Fixed-window counters in Redis, shared by the sign-in and sign-up limits: each attempt is counted
// before it is looked at, so parallel attempts cannot all slip through while the first is checked.

export interface WindowCount {
  count: number;
  /** Seconds until the window ends (-1 when Redis could not say). */
  ttl: number;
}

/** Counts one attempt in each key's window (the window starts at its first attempt), in one round trip. */
export async function countInWindows<const K extends readonly string[]>(
  redis: Redis,
  keys: K,
  windowSeconds: number,
): Promise<{ [I in keyof K]: WindowCount }> {
  const multi = redis.multi();
  for (const key of keys) multi.incr(key).expire(key, windowSeconds, 'NX').ttl(key);
  const numbers = ((await multi.exec()) ?? []).map(([error, value]) => {
    if (error) throw error;
    return Number(value);
  });
  // One count per key, in the keys' order: the mapped tuple type says as much.
  return keys.map((_, i) => ({ count: numbers[i * 3] ?? 0, ttl: numbers[i * 3 + 2] ?? -1 })) as { [I in keyof K]: WindowCount };
}

/**
 * The part of a client address that one party controls: an IPv6 client usually has a whole /64 to pick
 * addresses from, so counting per address would let it never run out. IPv4 (and IPv4-mapped) as is.
 */
export function addressKey(ip: string): string {
  if (!isIPv6(ip) || ip.toLowerCase().startsWith('::ffff:')) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** 429 RATE_LIMITED with Retry-After. */
export function rateLimited(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError('RATE_LIMITED', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
}
