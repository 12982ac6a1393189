import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { realtimeRoomSchema, type RealtimeEvent, type RealtimeRoom } from '@lazyboy/contracts';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { RedisService } from '../redis/redis.service.js';
import { RealtimeGateway } from './realtime.gateway.js';
import type { RealtimePublisher } from './realtime-publisher.js';

/** The Redis channel every API replica listens on for events to push to its sockets. */
export const REALTIME_CHANNEL = 'lazyboy:realtime';
const FIRST_SUBSCRIBE_WAIT_MS = 2_000;

const envelopeSchema = z.union([
  z.object({ rooms: z.array(realtimeRoomSchema), event: z.looseObject({ type: z.string() }) }),
  // A control message: close the user's sockets.
  z.object({ disconnectUser: z.uuid() }),
]);

/**
 * Fan-out through Redis pub/sub: publish() goes to every replica, and each replica emits to its own
 * sockets in the rooms. So a client may be connected to any replica, whichever one the work ran on.
 */
@Injectable()
export class RedisRealtimePublisher implements RealtimePublisher, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RedisRealtimePublisher.name);
  private subscriber?: Redis;

  constructor(
    private readonly redis: RedisService,
    private readonly gateway: RealtimeGateway,
  ) {}

  async publish(rooms: readonly RealtimeRoom[], event: RealtimeEvent): Promise<void> {
    if (rooms.length === 0) return;
    try {
      await this.redis.client.publish(REALTIME_CHANNEL, JSON.stringify({ rooms, event }));
    } catch (error) {
      // Best effort by design: clients re-read state from the API after a reconnect.
      this.logger.warn(`realtime event ${event.type} not published: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async disconnectUser(userId: string): Promise<void> {
    try {
      await this.redis.client.publish(REALTIME_CHANNEL, JSON.stringify({ disconnectUser: userId }));
    } catch (error) {
      // Still close this replica's sockets: with one replica (the common case) that is all of them.
      this.gateway.disconnectUserLocally(userId);
      this.logger.warn(`realtime disconnect not published: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Subscribes on a dedicated connection (a subscribed connection can run nothing else). */
  async onModuleInit(): Promise<void> {
    const subscriber = this.redis.client.duplicate({ lazyConnect: true, autoResubscribe: false });
    this.subscriber = subscriber;
    subscriber.on('error', () => {
      // RedisService already reports the outage on the main connection; this one only retries.
    });
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === REALTIME_CHANNEL) this.deliver(message);
    });
    // (Re)subscribe on every fresh connection, so a restarted Redis resumes delivery by itself.
    const subscribed = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), FIRST_SUBSCRIBE_WAIT_MS);
      subscriber.on('ready', () => {
        subscriber.subscribe(REALTIME_CHANNEL).then(
          () => {
            clearTimeout(timer);
            resolve(true);
          },
          (error: Error) => this.logger.warn(`realtime subscribe failed: ${error.message}`),
        );
      });
    });
    subscriber.connect().catch(() => {
      // Keeps retrying in the background (retryStrategy of the main connection).
    });
    if (!(await subscribed)) this.logger.warn('realtime: redis not reachable yet; events will reach this replica once it is');
  }

  async onModuleDestroy(): Promise<void> {
    this.subscriber?.disconnect();
  }

  private deliver(message: string): void {
    let envelope: z.infer<typeof envelopeSchema>;
    try {
      envelope = envelopeSchema.parse(JSON.parse(message));
    } catch {
      this.logger.warn('realtime: ignored a malformed message on the channel');
      return;
    }
    if ('disconnectUser' in envelope) return this.gateway.disconnectUserLocally(envelope.disconnectUser);
    // The publisher typed the event; the envelope check only guards against foreign writers on the channel.
    this.gateway.deliverLocally(envelope.rooms, envelope.event as RealtimeEvent);
  }
}
