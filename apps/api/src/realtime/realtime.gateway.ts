import { Logger } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  SubscribeMessage,
  WebSocketGateway,
  WebSocketServer,
  type OnGatewayInit,
} from '@nestjs/websockets';
import {
  crossSiteOrigin,
  REALTIME_EVENT,
  REALTIME_SUBSCRIBE,
  REALTIME_UNAUTHENTICATED,
  REALTIME_UNSUBSCRIBE,
  realtimeRoomSchema,
  roomName,
  safeParseInput,
  type RealtimeAck,
  type RealtimeEvent,
  type RealtimeRoom,
} from '@lazyboy/contracts';
import type { Server, Socket } from 'socket.io';
import { SessionAuthenticator, type Principal } from '../auth/principal.js';
import { RealtimeRoomAccess } from './realtime-room-access.js';

interface SocketData {
  principal: Principal;
}
type AuthedSocket = Socket<Record<string, never>, Record<string, never>, Record<string, never>, SocketData>;

/**
 * socket.io on the API's own HTTP server (path /socket.io). The handshake is authenticated with the session
 * cookie before the connection is accepted, so no message ever arrives from an unknown caller; clients then
 * subscribe to the rooms they may see and receive `event` messages for them.
 */
@WebSocketGateway()
export class RealtimeGateway implements OnGatewayInit<Server> {
  @WebSocketServer() private server!: Server;
  private readonly logger = new Logger(RealtimeGateway.name);

  constructor(
    private readonly sessions: SessionAuthenticator,
    private readonly access: RealtimeRoomAccess,
  ) {}

  afterInit(server: Server): void {
    // A middleware rather than handleConnection: it runs before the connection is accepted, so a refused
    // client gets a connect_error and messages cannot race the authentication.
    server.use((socket, next) => {
      // Another site's page would otherwise listen with the person's cookie (libs/contracts same-origin.ts).
      if (crossSiteOrigin(socket.handshake.headers) !== null) return next(new Error(REALTIME_UNAUTHENTICATED));
      this.sessions
        .fromCookieHeader(socket.handshake.headers.cookie)
        .then((principal) => {
          if (!principal) return next(new Error(REALTIME_UNAUTHENTICATED));
          (socket.data as SocketData).principal = principal;
          // At the handshake, before the client can subscribe to anything: disconnectUserLocally finds it there.
          void socket.join(userRoom(principal.userId));
          next();
        })
        .catch((error: unknown) => {
          this.logger.warn(`socket authentication failed: ${error instanceof Error ? error.message : String(error)}`);
          next(new Error(REALTIME_UNAUTHENTICATED));
        });
    });
  }

  @SubscribeMessage(REALTIME_SUBSCRIBE)
  async subscribe(@ConnectedSocket() socket: AuthedSocket, @MessageBody() body: unknown): Promise<RealtimeAck> {
    const parsed = safeParseInput(realtimeRoomSchema, body);
    if (!parsed.success) return { ok: false, error: 'invalid room' };
    try {
      // Foreign and missing rooms get the same answer, like a 404 over HTTP.
      if (!(await this.access.mayJoin(socket.data.principal, parsed.data))) return { ok: false, error: 'not found' };
    } catch (error) {
      this.logger.error(`subscribe failed: ${error instanceof Error ? error.message : String(error)}`);
      return { ok: false, error: 'internal error' };
    }
    await socket.join(roomName(parsed.data));
    return { ok: true };
  }

  @SubscribeMessage(REALTIME_UNSUBSCRIBE)
  async unsubscribe(@ConnectedSocket() socket: AuthedSocket, @MessageBody() body: unknown): Promise<RealtimeAck> {
    const parsed = safeParseInput(realtimeRoomSchema, body);
    if (!parsed.success) return { ok: false, error: 'invalid room' };
    await socket.leave(roomName(parsed.data));
    return { ok: true };
  }

  /** Closes this replica's own sockets of the user (RealtimePublisher.disconnectUser fans this out). */
  disconnectUserLocally(userId: string): void {
    this.server?.in(userRoom(userId)).disconnectSockets(true);
  }

  /** Emits to this replica's own sockets in any of the rooms (each socket once). */
  deliverLocally(rooms: readonly RealtimeRoom[], event: RealtimeEvent): void {
    if (!this.server || rooms.length === 0) return;
    this.server.to(rooms.map(roomName)).emit(REALTIME_EVENT, event);
  }
}

/** Every socket of a user, joined at the handshake; not a room clients can subscribe to. */
export function userRoom(userId: string): string {
  return `user:${userId}`;
}
