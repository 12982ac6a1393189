import { Injectable } from '@nestjs/common';
import { RedisService } from '../redis/redis.service.js';
import { rateLimited } from '../auth/rate-windows.js';

/** Wrong passwords one person may give to reveal vault secrets within the window before they must wait. */
export const REVEAL_FAILURES_ALLOWED = 5;
export const REVEAL_WINDOW_SECONDS = 15 * 60;

const key = (userId: string) => `lazyboy:vault-reveal-failures:${userId}`;

/**
 * A stolen session must not become a way to guess its owner's password through the reveal: wrong passwords
 * are counted per person in Redis, and past the allowance every reveal waits out the window (429). Unlike
 * sign-ins this fails closed: with Redis unreachable nobody reveals anything.
 */
@Injectable()
export class VaultRevealLimiter {
  constructor(private readonly redis: RedisService) {}

  async check(userId: string): Promise<void> {
    const [count, ttl] = await Promise.all([this.redis.client.get(key(userId)), this.redis.client.ttl(key(userId))]);
    if (Number(count ?? 0) >= REVEAL_FAILURES_ALLOWED) {
      throw rateLimited('too many wrong passwords: try revealing again later', Math.max(ttl, 1));
    }
  }

  async failed(userId: string): Promise<void> {
    await this.redis.client.multi().incr(key(userId)).expire(key(userId), REVEAL_WINDOW_SECONDS, 'NX').exec();
  }
}
