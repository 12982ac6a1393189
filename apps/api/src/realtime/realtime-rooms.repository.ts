import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { visibleWorkspaces } from '../tenancy/workspace-scope.js';

/** Whether the rows behind chat and agent rooms exist in a workspace the principal may see. */
@Injectable()
export class RealtimeRoomsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async chatVisible(principal: Principal, chatId: string): Promise<boolean> {
    return (await this.prisma.chat.count({ where: { id: chatId, workspace: visibleWorkspaces(principal) } })) > 0;
  }

  async agentVisible(principal: Principal, agentId: string): Promise<boolean> {
    return (await this.prisma.agent.count({ where: { id: agentId, workspace: visibleWorkspaces(principal) } })) > 0;
  }
}
