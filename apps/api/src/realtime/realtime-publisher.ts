import type { RealtimeEvent, RealtimeRoom } from '@lazyboy/contracts';

/**
 * Sends an event to every socket in the given rooms, on whichever API replica each one is connected to
 * (the realtime module fans it out through Redis). Delivery is best effort: Postgres stays the truth and
 * clients re-read state after a reconnect.
 */
export abstract class RealtimePublisher {
  abstract publish(rooms: readonly RealtimeRoom[], event: RealtimeEvent): Promise<void>;
}
