import { Inject, Injectable, Logger } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { RedisService } from '../redis/redis.service.js';
import { addressKey, countInWindows, rateLimited, type WindowCount } from './rate-windows.js';
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
    let window: WindowCount;
    try {
      [window] = await countInWindows(
        this.redis.client,
        [`lazyboy:signup-attempts:${sha256Hex(addressKey(ip))}`],
        SIGNUP_WINDOW_SECONDS,
      );
    } catch (error) {
      this.logger.warn(`sign-up rate limit not applied, redis unavailable: ${(error as Error).message}`);
      return;
    }
    if (window.count <= this.limit) return;
    throw rateLimited(
      'too many sign-ups from this address: try again later',
      window.ttl > 0 ? window.ttl : SIGNUP_WINDOW_SECONDS,
    );
  }
}
