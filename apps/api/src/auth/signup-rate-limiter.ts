import { Inject, Injectable, Logger } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { RedisService } from '../redis/redis.service.js';
import { addressKey, countInWindows, rateLimited, type WindowCount } from './rate-windows.js';
import { sha256Hex } from './secrets.js';

/** Sign-ups count within this window, from the first one on (a fixed window per address). */
export const SIGNUP_WINDOW_SECONDS = 60 * 60;

/** What is counted: sign-ups, and look-ups of invitation links (the sign-up page's first call), apart. */
type Counted = 'signup' | 'invitation-lookup';

const COUNTERS: Record<Counted, { key: string; refusal: string }> = {
  signup: { key: 'lazyboy:signup-attempts', refusal: 'too many sign-ups from this address: try again later' },
  'invitation-lookup': {
    key: 'lazyboy:invitation-lookups',
    refusal: 'too many invitation look-ups from this address: try again later',
  },
};

/**
 * Counts sign-up attempts per address in Redis and refuses them with 429 RATE_LIMITED past
 * LAZYBOY_SIGNUPS_PER_HOUR: one address cannot fill the database with accounts (each also costs a scrypt
 * hash and a workspace). Look-ups of invitation links are counted the same way on a counter of their own
 * with their own, larger allowance (LAZYBOY_INVITATION_LOOKUPS_PER_HOUR: a team behind one address reloads
 * its links), so nobody tries tokens at speed and opening the link does not use up the sign-up it leads to. Counted
 * before anything is checked, so a burst in parallel cannot slip through. While Redis is unreachable
 * both go on (logged), like sign-ins.
 */
@Injectable()
export class SignupRateLimiter {
  private readonly logger = new Logger(SignupRateLimiter.name);
  private readonly limits: Record<Counted, number>;

  constructor(
    @Inject(API_CONFIG) config: ApiConfig,
    private readonly redis: RedisService,
  ) {
    this.limits = {
      signup: config.LAZYBOY_SIGNUPS_PER_HOUR,
      'invitation-lookup': config.LAZYBOY_INVITATION_LOOKUPS_PER_HOUR,
    };
  }

  /** Counts one sign-up from `ip`; throws RATE_LIMITED once the address is over its allowance. */
  attempt(ip: string): Promise<void> {
    return this.count('signup', ip);
  }

  /** Counts one look-up of an invitation link from `ip`; throws RATE_LIMITED once the address is over its allowance. */
  lookup(ip: string): Promise<void> {
    return this.count('invitation-lookup', ip);
  }

  private async count(counted: Counted, ip: string): Promise<void> {
    const counter = COUNTERS[counted];
    let window: WindowCount;
    try {
      [window] = await countInWindows(this.redis.client, [`${counter.key}:${sha256Hex(addressKey(ip))}`], SIGNUP_WINDOW_SECONDS);
    } catch (error) {
      this.logger.warn(`${counted} rate limit not applied, redis unavailable: ${(error as Error).message}`);
      return;
    }
    if (window.count <= this.limits[counted]) return;
    throw rateLimited(counter.refusal, window.ttl > 0 ? window.ttl : SIGNUP_WINDOW_SECONDS);
  }
}
