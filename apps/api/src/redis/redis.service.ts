import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Redis } from 'ioredis';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';

const STARTUP_WAIT_MS = 2_000;

/**
 * The API's Redis connection (wake-ups and event fan-out; Postgres stays the truth). Commands fail at
 * once while Redis is unreachable rather than queueing, and the client keeps reconnecting in the
 * background, so a restarted Redis is picked up without restarting the API.
 */
@Injectable()
export class RedisService implements OnModuleInit, OnModuleDestroy {
  readonly client: Redis;
  private readonly logger = new Logger(RedisService.name);
  private lastError = '';

  constructor(@Inject(API_CONFIG) config: ApiConfig) {
    this.client = new Redis(config.REDIS_URL, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      // Reconnect forever, at most one second apart.
      retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
      lazyConnect: false,
    });
    this.client.on('error', (error: Error) => {
      // ioredis repeats the same error on every reconnect attempt; log each new one once.
      if (error.message !== this.lastError) this.logger.warn(`redis: ${error.message}`);
      this.lastError = error.message;
    });
    this.client.on('ready', () => {
      if (this.lastError) this.logger.log('redis: connected again');
      this.lastError = '';
    });
  }

  /** Start-up waits briefly for the first connection, but starts without Redis (/readyz says so). */
  async onModuleInit(): Promise<void> {
    if (this.client.status === 'ready') return;
    const connected = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.client.off('ready', onReady);
        resolve(false);
      }, STARTUP_WAIT_MS);
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.client.once('ready', onReady);
    });
    if (!connected)
      this.logger.warn(`redis not reachable yet (${this.lastError || this.client.status}); retrying in the background`);
  }

  /** One PING; fails at once while the connection is down rather than waiting for it to come back. */
  async ping(): Promise<void> {
    if (this.client.status !== 'ready') throw new Error(`not connected (${this.lastError || this.client.status})`);
    const reply = await this.client.ping();
    if (reply !== 'PONG') throw new Error(`unexpected PING reply ${reply}`);
  }

  async onModuleDestroy(): Promise<void> {
    this.client.disconnect();
  }
}
