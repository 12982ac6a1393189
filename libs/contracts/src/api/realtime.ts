import { z } from 'zod';
import { computerViewSchema } from './computers.js';
import { idSchema } from './common.js';
import { messageViewSchema } from './chats.js';
import { runViewSchema } from './runs.js';

// The socket.io protocol between the API and the web app. A client joins rooms by subscribing; the
// server checks membership of the room's workspace before it joins. Every server event is one
// `RealtimeEvent` on the socket.io event name `event`.

export const REALTIME_EVENT = 'event';
export const REALTIME_SUBSCRIBE = 'subscribe';
export const REALTIME_UNSUBSCRIBE = 'unsubscribe';
/** The message of the `connect_error` a handshake without a live session cookie gets (it is then disconnected). */
export const REALTIME_UNAUTHENTICATED = 'unauthenticated';

export const realtimeRoomSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('workspace'), id: idSchema }),
  z.strictObject({ kind: z.literal('chat'), id: idSchema }),
  z.strictObject({ kind: z.literal('agent'), id: idSchema }),
]);
export type RealtimeRoom = z.infer<typeof realtimeRoomSchema>;

export function roomName(room: RealtimeRoom): string {
  return `${room.kind}:${room.id}`;
}

export const realtimeEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run.updated'), run: runViewSchema }),
  z.object({ type: z.literal('message.created'), message: messageViewSchema }),
  z.object({ type: z.literal('messages.cleared'), chatId: idSchema }),
  z.object({ type: z.literal('computer.updated'), computer: computerViewSchema }),
]);
export type RealtimeEvent = z.infer<typeof realtimeEventSchema>;

/**
 * Acknowledgement of a subscribe / unsubscribe. Errors: 'invalid room' (not a RealtimeRoom), 'not found'
 * (missing, or in a workspace the caller cannot see: the two look alike), 'internal error'.
 */
export const realtimeAckSchema = z.union([
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
export type RealtimeAck = z.infer<typeof realtimeAckSchema>;
