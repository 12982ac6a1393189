import { Inject, Injectable, Logger } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { ApiError } from '../common/api-error.js';
import { RedisService } from '../redis/redis.service.js';
import { sha256Hex } from './secrets.js';

/** Sign-ups count within this window, from the first one on (a fixed window per address). */
export const SIGNUP_WINDOW_SECONDS = 60 * 60;

/**
 * Counts sign-up attempts per address in Redis and refuses them with 429 RATE_LIMITED past
 * LAZYBOY_SIGNUPS_PER_HOUR: anyone who reaches the server may make an account, but one address cannot
 * fill the database with them (each also costs a scrypt hash and a workspace). Counted before anything is
 * checked, so a burst in parallel cannot slip through. While Redis is unreachable sign-ups go on (logged),
 * like sign-ins.
 */
@Injectable()
export class SignupRateLimiter {
  private readonly logger = new Logger(SignupRateLimiter.name);
  private readonly limit: number;

  constructor(
    @Inject(API_CONFIG) config: ApiConfig,
    private readonly redis: RedisService,
  ) {
    this.limit = config.LAZYBOY_SIGNUPS_PER_HOUR;
  }

  /** Counts one attempt from `ip`; throws RATE_LIMITED once the address is over its allowance. */
  async attempt(ip: string): Promise<void> {
    const key = `lazyboy:signup-attempts:${sha256Hex(ip)}`;
    let count: number;
    let ttl: number;
    try {
      const replies = await this.redis.client.multi().incr(key).expire(key, SIGNUP_WINDOW_SECONDS, 'NX').ttl(key).exec();
      [count = 0, , ttl = -1] = (replies ?? []).map(([error, value]) => {
        if (error) throw error;
        return Number(value);
      });
    } catch (error) {
      this.logger.warn(`sign-up rate limit not applied, redis unavailable: ${(error as Error).message}`);
      return;
    }
    if (count <= this.limit) return;
    const retryAfter = ttl > 0 ? ttl : SIGNUP_WINDOW_SECONDS;
    throw new ApiError(
      'RATE_LIMITED',
      'too many sign-ups from this address: try again later',
      { retryAfterSeconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
}
