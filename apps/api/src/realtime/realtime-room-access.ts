import { Injectable } from '@nestjs/common';
import type { RealtimeRoom } from '@lazyboy/contracts';
import type { Principal } from '../auth/principal.js';
import { ApiError } from '../common/api-error.js';
import { WorkspaceAccess } from '../tenancy/workspace-access.js';
import { RealtimeRoomsRepository } from './realtime-rooms.repository.js';

/** Who may join a room: the same visibility rules as the HTTP routes that read its workspace or row. */
@Injectable()
export class RealtimeRoomAccess {
  constructor(
    private readonly workspaces: WorkspaceAccess,
    private readonly rooms: RealtimeRoomsRepository,
  ) {}

  async mayJoin(principal: Principal, room: RealtimeRoom): Promise<boolean> {
    switch (room.kind) {
      case 'workspace':
        try {
          await this.workspaces.require(principal, room.id);
          return true;
        } catch (error) {
          if (error instanceof ApiError && error.code === 'NOT_FOUND') return false;
          throw error;
        }
      case 'chat':
        return this.rooms.chatVisible(principal, room.id);
      case 'agent':
        return this.rooms.agentVisible(principal, room.id);
    }
  }
}
