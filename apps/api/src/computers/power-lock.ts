import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error.js';
import { RedisService } from '../redis/redis.service.js';

/** Lock lifetime without renewal: an API that died mid-work frees the computer after this. */
const TTL_MS = 30_000;
const RENEW_MS = 10_000;
const POLL_MS = 100;
/** Longest a caller waits for another's wake/suspend/stop (a wake may take a minute). */
const WAIT_MS = 150_000;

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

/**
 * A computer's power lock in Redis, so that a suspend, wake or stop from any replica reaches the worker
 * one after the other, each after reading the state the previous one left. Renewed while the work runs
 * (no deadline cuts a slow worker call short) and holding no database connection meanwhile.
 */
@Injectable()
export class PowerLock {
  constructor(private readonly redis: RedisService) {}

  async with<T>(computerId: string, work: () => Promise<T>): Promise<T> {
    const key = `lazyboy:computer-power:${computerId}`;
    const token = randomBytes(16).toString('base64url');
    const deadline = Date.now() + WAIT_MS;
    while ((await this.redis.client.set(key, token, 'PX', TTL_MS, 'NX')) !== 'OK') {
      if (Date.now() > deadline) throw new ApiError('NOT_READY', 'the computer is busy starting or stopping; try again');
      await sleep(POLL_MS);
    }
    const renew = setInterval(() => {
      this.redis.client.eval(RENEW, 1, key, token, String(TTL_MS)).catch(() => undefined);
    }, RENEW_MS);
    try {
      return await work();
    } finally {
      clearInterval(renew);
      await this.redis.client.eval(RELEASE, 1, key, token).catch(() => undefined);
    }
  }
}
