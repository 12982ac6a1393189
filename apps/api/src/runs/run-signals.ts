import { randomBytes } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisService } from '../redis/redis.service.js';

const WAKE_CHANNEL = 'lazyboy:runs:wake';
const STOP_CHANNEL = 'lazyboy:runs:stop';

/**
 * Wake-ups between API replicas over Redis: "a run was queued" (executors claim at once instead of
 * polling) and "stop this run" (its executor aborts). Redis is only the doorbell: Postgres holds the
 * queue, and executors also sweep it on a timer, so a lost message delays a run but never loses it.
 */
@Injectable()
export class RunSignals implements OnModuleDestroy {
  private readonly logger = new Logger(RunSignals.name);
  private subscriber: Redis | null = null;
  private readonly wakeHandlers = new Set<() => void>();
  private readonly stopHandlers = new Set<(runId: string) => void>();
  /** Names this replica's wake-ups on the channel, so that it does not answer its own a second time. */
  private readonly origin = randomBytes(8).toString('hex');

  constructor(private readonly redis: RedisService) {}

  /**
   * Tells every executor to look at the queue: this replica's at once, without the trip through Redis, the
   * others over the channel. Best effort: a failure is logged, the sweep covers it.
   */
  async wake(): Promise<void> {
    for (const handler of this.wakeHandlers) handler();
    await this.publish(WAKE_CHANNEL, this.origin);
  }

  async stop(runId: string): Promise<void> {
    await this.publish(STOP_CHANNEL, runId);
  }

  onWake(handler: () => void): void {
    this.wakeHandlers.add(handler);
    this.ensureSubscribed();
  }

  onStop(handler: (runId: string) => void): void {
    this.stopHandlers.add(handler);
    this.ensureSubscribed();
  }

  private async publish(channel: string, message: string): Promise<void> {
    try {
      await this.redis.client.publish(channel, message);
    } catch (error) {
      this.logger.warn(`could not publish on ${channel}: ${(error as Error).message}`);
    }
  }

  private ensureSubscribed(): void {
    if (this.subscriber) return;
    // A subscribed connection can do nothing else, and it must queue its SUBSCRIBE until connected.
    const subscriber = this.redis.client.duplicate({ enableOfflineQueue: true, lazyConnect: false });
    subscriber.on('error', () => undefined);
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === WAKE_CHANNEL && message !== this.origin) for (const handler of this.wakeHandlers) handler();
      if (channel === STOP_CHANNEL) for (const handler of this.stopHandlers) handler(message);
    });
    // After a reconnect the executor sweeps at once: wake-ups sent while Redis was away were lost.
    subscriber.on('ready', () => {
      for (const handler of this.wakeHandlers) handler();
    });
    void subscriber
      .subscribe(WAKE_CHANNEL, STOP_CHANNEL)
      .catch((error: Error) => this.logger.warn(`subscribe: ${error.message}`));
    this.subscriber = subscriber;
  }

  onModuleDestroy(): void {
    this.subscriber?.disconnect();
    this.subscriber = null;
  }
}
