import type { RealtimeEvent, RealtimeRoom } from '@lazyboy/contracts';

/**
 * Sends an event to every socket in the given rooms, on whichever API replica each one is connected to
 * (the realtime module fans it out through Redis). Delivery is best effort: Postgres stays the truth and
 * clients re-read state after a reconnect.
 */
export abstract class RealtimePublisher {
  abstract publish(rooms: readonly RealtimeRoom[], event: RealtimeEvent): Promise<void>;

  /**
   * Closes every socket of the user, on every replica: called when they lose access (removed from a
   * workspace, signed out, disabled), since a socket keeps its rooms until it reconnects and re-authenticates.
   * Not abstract so test doubles that reach no sockets need not implement it; the real publisher does.
   */
  disconnectUser(_userId: string): Promise<void> {
    return Promise.resolve();
  }
}
