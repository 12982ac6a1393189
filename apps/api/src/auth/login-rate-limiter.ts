import { Inject, Injectable, Logger } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import type { ApiError } from '../common/api-error.js';
import { RedisService } from '../redis/redis.service.js';
import { addressKey, countInWindows, rateLimited as tooMany, type WindowCount } from './rate-windows.js';
import { sha256Hex } from './secrets.js';

/** Attempts count within this window, from the first attempt on (a fixed window per key). */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
/** One address may fail this many times the per-email allowance, across all emails (password spraying). */
export const PER_IP_FACTOR = 5;

/** Why a sign-in was refused before its password was looked at. */
export interface LoginRefusal {
  retryAfterSeconds: number;
  /** The first refusal of its window: the one worth an audit row (the rest would only flood the log). */
  first: boolean;
}

// Forgets the (email, address) count and gives the address back the attempt a successful sign-in used.
// A script, so the address count is only decremented while it exists: a DECR after expiry would
// create a key without a TTL.
const SUCCEEDED_SCRIPT = `
redis.call('DEL', KEYS[1])
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 0
`;

/**
 * Counts sign-in attempts in Redis, per (email, address) and per address, and refuses them with 429
 * RATE_LIMITED once a count exceeds its allowance, until the window ends. Each attempt is counted
 * atomically BEFORE its password is checked, so parallel guesses cannot all slip through while scrypt
 * runs; a successful sign-in takes its attempt back.
 *
 * While Redis is unreachable sign-ins go on unlimited (logged): an outage of the cache should not lock
 * every user out, and scrypt already makes each guess cost tens of milliseconds.
 */
@Injectable()
export class LoginRateLimiter {
  private readonly logger = new Logger(LoginRateLimiter.name);
  private readonly perPair: number;
  private readonly perIp: number;

  constructor(
    @Inject(API_CONFIG) config: ApiConfig,
    private readonly redis: RedisService,
  ) {
    this.perPair = config.LAZYBOY_LOGIN_ATTEMPTS;
    this.perIp = config.LAZYBOY_LOGIN_ATTEMPTS * PER_IP_FACTOR;
  }

  /** Counts one attempt; null when it may go on, the refusal when either count is over its allowance. */
  async attempt(email: string, ip: string): Promise<LoginRefusal | null> {
    let counts: [WindowCount, WindowCount];
    try {
      counts = await countInWindows(this.redis.client, keys(email, ip), LOGIN_WINDOW_SECONDS);
    } catch (error) {
      this.unavailable(error);
      return null;
    }
    const [pair, address] = counts;
    const over = [
      { ...pair, limit: this.perPair },
      { ...address, limit: this.perIp },
    ].filter((entry) => entry.count > entry.limit);
    if (over.length === 0) return null;
    return {
      retryAfterSeconds: Math.max(1, ...over.map((entry) => (entry.ttl > 0 ? entry.ttl : LOGIN_WINDOW_SECONDS))),
      first: over.some((entry) => entry.count === entry.limit + 1),
    };
  }

  /** A successful sign-in forgets that email's attempts from that address and takes its own back from the address. */
  async succeeded(email: string, ip: string): Promise<void> {
    try {
      await this.redis.client.eval(SUCCEEDED_SCRIPT, 2, ...keys(email, ip));
    } catch (error) {
      this.unavailable(error);
    }
  }

  private unavailable(error: unknown): void {
    this.logger.warn(`login rate limit not applied, redis unavailable: ${(error as Error).message}`);
  }
}

/** The 429 answer to a refused attempt, with Retry-After. */
export function rateLimited(refusal: LoginRefusal): ApiError {
  return tooMany('too many failed sign-ins: try again later', refusal.retryAfterSeconds);
}

/** Emails are hashed in the key names: Redis keys show up in monitoring tools and must not list addresses. */
function keys(email: string, ip: string): [pair: string, ip: string] {
  const address = addressKey(ip);
  return [`lazyboy:login-attempts:pair:${sha256Hex(`${email}\n${address}`)}`, `lazyboy:login-attempts:ip:${sha256Hex(address)}`];
}
