import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { RealtimeGateway } from './realtime.gateway.js';
import { RealtimePublisher } from './realtime-publisher.js';
import { RealtimeRoomAccess } from './realtime-room-access.js';
import { RealtimeRoomsRepository } from './realtime-rooms.repository.js';
import { RedisRealtimePublisher } from './redis-realtime-publisher.js';

/** The socket.io gateway and the Redis fan-out behind `RealtimePublisher`; global so any module can publish. */
@Module({})
export class RealtimeModule {
  /** `auth`: the module exporting the `SessionAuthenticator` the handshake uses (AuthModule in the app). */
  static forRoot(auth: Type | DynamicModule): DynamicModule {
    return {
      module: RealtimeModule,
      global: true,
      imports: [auth],
      providers: [
        RealtimeRoomsRepository,
        RealtimeRoomAccess,
        RealtimeGateway,
        { provide: RealtimePublisher, useClass: RedisRealtimePublisher },
      ],
      exports: [RealtimePublisher],
    };
  }
}
