import { Inject, Injectable, Logger } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { ApiError } from '../common/api-error.js';
import { RedisService } from '../redis/redis.service.js';
import { sha256Hex } from './secrets.js';

/** Failures count within this window, from the first failure on (a fixed window per key). */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
/** One address may fail this many times the per-email allowance, across all emails (password spraying). */
export const PER_IP_FACTOR = 5;

/**
 * Counts failed sign-ins in Redis, per (email, address) and per address, and refuses further attempts
 * with 429 RATE_LIMITED once a count exceeds its allowance, until the window ends.
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

  /** Throws RATE_LIMITED (with Retry-After) when either count has used up its allowance. */
  async check(email: string, ip: string): Promise<void> {
    const [pairKey, ipKey] = keys(email, ip);
    let counts: (string | null)[];
    try {
      counts = await this.redis.client.mget(pairKey, ipKey);
    } catch (error) {
      this.unavailable(error);
      return;
    }
    const blocked = [
      { key: pairKey, count: Number(counts[0] ?? 0), limit: this.perPair },
      { key: ipKey, count: Number(counts[1] ?? 0), limit: this.perIp },
    ].filter((entry) => entry.count >= entry.limit);
    if (blocked.length === 0) return;
    let retryAfter = LOGIN_WINDOW_SECONDS;
    try {
      const ttls = await Promise.all(blocked.map((entry) => this.redis.client.ttl(entry.key)));
      retryAfter = Math.max(1, ...ttls);
    } catch (error) {
      this.unavailable(error);
    }
    throw new ApiError(
      'RATE_LIMITED',
      'too many failed sign-ins: try again later',
      { retryAfterSeconds: retryAfter },
      {
        'Retry-After': String(retryAfter),
      },
    );
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    const [pairKey, ipKey] = keys(email, ip);
    try {
      // SET NX EX starts the window at the first failure; INCR never touches the expiry.
      await this.redis.client
        .multi()
        .set(pairKey, '0', 'EX', LOGIN_WINDOW_SECONDS, 'NX')
        .incr(pairKey)
        .set(ipKey, '0', 'EX', LOGIN_WINDOW_SECONDS, 'NX')
        .incr(ipKey)
        .exec();
    } catch (error) {
      this.unavailable(error);
    }
  }

  /** A successful sign-in forgets that email's failures from that address (not the address's total). */
  async clear(email: string, ip: string): Promise<void> {
    try {
      await this.redis.client.del(keys(email, ip)[0]);
    } catch (error) {
      this.unavailable(error);
    }
  }

  private unavailable(error: unknown): void {
    this.logger.warn(`login rate limit not applied, redis unavailable: ${(error as Error).message}`);
  }
}

/** Emails are hashed in the key names: Redis keys show up in monitoring tools and must not list addresses. */
function keys(email: string, ip: string): [pair: string, ip: string] {
  return [`lazyboy:login-failures:pair:${sha256Hex(`${email}\n${ip}`)}`, `lazyboy:login-failures:ip:${sha256Hex(ip)}`];
}
