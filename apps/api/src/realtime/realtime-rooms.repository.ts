import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { visibleWorkspaces } from '../tenancy/workspace-scope.js';

/** Whether the rows behind session and bot rooms exist in a workspace the principal may see. */
@Injectable()
export class RealtimeRoomsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async sessionVisible(principal: Principal, sessionId: string): Promise<boolean> {
    return (await this.prisma.session.count({ where: { id: sessionId, workspace: visibleWorkspaces(principal) } })) > 0;
  }

  async botVisible(principal: Principal, botId: string): Promise<boolean> {
    return (await this.prisma.bot.count({ where: { id: botId, workspace: visibleWorkspaces(principal) } })) > 0;
  }
}
