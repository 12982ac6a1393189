import { Injectable } from '@nestjs/common';
import type { ComputerMode } from '@lazyboy/contracts';
import type { Principal } from '../auth/principal.js';
import { Prisma, type Bot } from '../persistence/generated/client.js';
import { isUniqueViolation } from '../persistence/prisma-errors.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { visibleWorkspaces } from '../tenancy/workspace-scope.js';

export interface NewBot {
  workspaceId: string;
  name: string;
  avatarSeed: string;
  instructions: string;
  computerMode: ComputerMode;
  modelSettings: Prisma.InputJsonObject;
  createdById: string;
}

export interface BotChanges {
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
export class BotsRepository {
  constructor(private readonly prisma: PrismaService) {}

  listInWorkspace(workspaceId: string): Promise<Bot[]> {
    return this.prisma.bot.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  async create(bot: NewBot): Promise<Bot | typeof NAME_TAKEN> {
    try {
      return await this.prisma.bot.create({ data: bot });
    } catch (error) {
      if (isUniqueViolation(error)) return NAME_TAKEN;
      throw error;
    }
  }

  /** The bot when it lives in a workspace the principal may see; null for foreign and missing ids alike. */
  findVisible(principal: Principal, botId: string): Promise<Bot | null> {
    return this.prisma.bot.findFirst({ where: { id: botId, workspace: visibleWorkspaces(principal) } });
  }

  /** Changes a bot the principal may see; null for foreign and missing ids alike. */
  async updateVisible(principal: Principal, botId: string, changes: BotChanges): Promise<Bot | null | typeof NAME_TAKEN> {
    try {
      return await this.prisma.bot.update({ where: { id: botId, workspace: visibleWorkspaces(principal) }, data: changes });
    } catch (error) {
      if (isUniqueViolation(error)) return NAME_TAKEN;
      if (isRecordMissing(error)) return null;
      throw error;
    }
  }

  /** Whether a bot the principal may see was deleted (its sessions, runs and memory go with it). */
  async deleteVisible(principal: Principal, botId: string): Promise<boolean> {
    const { count } = await this.prisma.bot.deleteMany({ where: { id: botId, workspace: visibleWorkspaces(principal) } });
    return count > 0;
  }
}

function isRecordMissing(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025';
}
