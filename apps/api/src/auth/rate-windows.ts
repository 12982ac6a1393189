import { isIPv6 } from 'node:net';
import type { Redis } from 'ioredis';
import { ApiError } from '../common/api-error.js';

// Counters in Redis for the sign-in and sign-up limits: fixed windows (per address) and escalating
// cool-downs (per account). Each attempt is counted before it is looked at, so parallel attempts cannot all
// slip through while the first is checked.

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

/** When attempts on one key start to wait, and for how long. */
export interface CooldownPolicy {
  /** This many attempts go on at once; the last of them, and each one after, makes the next one wait. */
  freeAttempts: number;
  /** The first wait; each further attempt doubles it... */
  firstWaitSeconds: number;
  /** ...up to this. */
  maxWaitSeconds: number;
  /** The count is forgotten this long after the last attempt (longer than maxWaitSeconds). */
  memorySeconds: number;
}

export type CooldownAttempt =
  | {
      allowed: true;
      /** How many attempts the key has counted, this one included. */
      count: number;
      /** How long the next attempt must wait (0: it need not). */
      waitSeconds: number;
    }
  | { allowed: false; retryAfterSeconds: number };

// KEYS: the count, the wait. ARGV: free attempts, first wait ms, max wait ms, memory ms. An attempt while
// the key waits is refused and not counted: waiting it out is all it takes, so nobody can stretch a wait
// beyond its cap by knocking. Otherwise it is counted and, past the free ones, sets the next wait.
const COOLDOWN_SCRIPT = `
local wait = redis.call('PTTL', KEYS[2])
if wait > 0 then return {0, wait, 0} end
local count = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local free = tonumber(ARGV[1])
if count < free then return {1, 0, count} end
local delay = math.floor(math.min(tonumber(ARGV[2]) * 2 ^ (count - free), tonumber(ARGV[3])))
redis.call('SET', KEYS[2], '1', 'PX', delay)
return {1, delay, count}
`;

/** Redis keys of one cool-down (`name` must not repeat across cool-downs); in one hash slot, for the script. */
export function cooldownKeys(name: string): [count: string, wait: string] {
  return [`lazyboy:cooldown:{${name}}:count`, `lazyboy:cooldown:{${name}}:wait`];
}

/** Counts one attempt on a cool-down, or refuses it while the key waits. */
export async function attemptCooldown(redis: Redis, name: string, policy: CooldownPolicy): Promise<CooldownAttempt> {
  const answer = (await redis.eval(
    COOLDOWN_SCRIPT,
    2,
    ...cooldownKeys(name),
    policy.freeAttempts,
    policy.firstWaitSeconds * 1_000,
    policy.maxWaitSeconds * 1_000,
    policy.memorySeconds * 1_000,
  )) as [number, number, number];
  const [allowed, waitMs, count] = answer.map(Number) as [number, number, number];
  if (!allowed) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1_000)) };
  return { allowed: true, count, waitSeconds: Math.ceil(waitMs / 1_000) };
}

/** Forgets a cool-down's count and wait. */
export async function resetCooldown(redis: Redis, name: string): Promise<void> {
  await redis.del(...cooldownKeys(name));
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
