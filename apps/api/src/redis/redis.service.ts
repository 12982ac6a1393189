import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';

/**
 * The API's Redis connection (wake-ups and event fan-out; Postgres stays the truth). Commands fail at
 * once while Redis is unreachable rather than queueing, and the client keeps reconnecting in the
 * background, so a restarted Redis is picked up without restarting the API.
 */
@Injectable()
export class RedisService implements OnModuleDestroy {
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

  /**
   * PING, waiting up to `timeoutMs` for a connection that is still being (re-)established rather than
   * failing on the first instant after start-up or a restart.
   */
  async ping(timeoutMs: number): Promise<void> {
    if (this.client.status !== 'ready') {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.client.off('ready', onReady);
          reject(new Error(`not connected (${this.lastError || this.client.status})`));
        }, timeoutMs);
        const onReady = () => {
          clearTimeout(timer);
          resolve();
        };
        this.client.once('ready', onReady);
      });
    }
    const reply = await this.client.ping();
    if (reply !== 'PONG') throw new Error(`unexpected PING reply ${reply}`);
  }

  async onModuleDestroy(): Promise<void> {
    this.client.disconnect();
  }
}
