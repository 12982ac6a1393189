import { Injectable } from '@nestjs/common';
import type { ComputerMode } from '@lazyboy/contracts';
import type { Principal } from '../auth/principal.js';
import { Prisma, type Agent } from '../persistence/generated/client.js';
import { isUniqueViolation } from '../persistence/prisma-errors.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { visibleWorkspaces } from '../tenancy/workspace-scope.js';

export interface NewAgent {
  workspaceId: string;
  name: string;
  avatarSeed: string;
  instructions: string;
  computerMode: ComputerMode;
  modelSettings: Prisma.InputJsonObject;
  createdById: string;
}

export interface AgentChanges {
  name?: string;
  avatarSeed?: string;
  instructions?: string;
  computerMode?: ComputerMode;
  modelSettings?: Prisma.InputJsonObject;
  /** null removes the stored key. */
  modelApiKeyCipher?: Uint8Array<ArrayBuffer> | null;
}

/** The name is unique per workspace: the one conflict creating or renaming an agent can run into. */
export const NAME_TAKEN = 'name-taken';

@Injectable()
export class AgentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  listInWorkspace(workspaceId: string): Promise<Agent[]> {
    return this.prisma.agent.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  async create(agent: NewAgent): Promise<Agent | typeof NAME_TAKEN> {
    try {
      return await this.prisma.agent.create({ data: agent });
    } catch (error) {
      if (isUniqueViolation(error)) return NAME_TAKEN;
      throw error;
    }
  }

  /** The agent when it lives in a workspace the principal may see; null for foreign and missing ids alike. */
  findVisible(principal: Principal, agentId: string): Promise<Agent | null> {
    return this.prisma.agent.findFirst({ where: { id: agentId, workspace: visibleWorkspaces(principal) } });
  }

  /** Changes an agent the principal may see; null for foreign and missing ids alike. */
  async updateVisible(principal: Principal, agentId: string, changes: AgentChanges): Promise<Agent | null | typeof NAME_TAKEN> {
    try {
      return await this.prisma.agent.update({ where: { id: agentId, workspace: visibleWorkspaces(principal) }, data: changes });
    } catch (error) {
      if (isUniqueViolation(error)) return NAME_TAKEN;
      if (isRecordMissing(error)) return null;
      throw error;
    }
  }

  /** Whether an agent the principal may see was deleted (its chats, runs and memory go with it). */
  async deleteVisible(principal: Principal, agentId: string): Promise<boolean> {
    const { count } = await this.prisma.agent.deleteMany({ where: { id: agentId, workspace: visibleWorkspaces(principal) } });
    return count > 0;
  }
}

function isRecordMissing(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025';
}
