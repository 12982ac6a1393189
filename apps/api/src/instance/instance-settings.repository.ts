import { Injectable } from '@nestjs/common';
import type { SignupPolicy } from '@lazyboy/contracts';
import type { InstanceSettings } from '../persistence/generated/client.js';
import { PrismaService } from '../persistence/prisma.service.js';

/** The row's one id (a unique index in the migration keeps it the only one). */
const ROW = 1;

/** What an instance admin set; a setting left out keeps its column (null: its environment variable decides). */
export interface InstanceSettingsChanges {
  allowLocalModelServers?: boolean;
  signupPolicy?: SignupPolicy;
  environmentModelForAllWorkspaces?: boolean;
}

/** The instance settings row: absent until an instance admin first changes a setting. */
@Injectable()
export class InstanceSettingsRepository {
  constructor(private readonly prisma: PrismaService) {}

  find(): Promise<InstanceSettings | null> {
    return this.prisma.instanceSettings.findUnique({ where: { id: ROW } });
  }

  save(changes: InstanceSettingsChanges): Promise<InstanceSettings> {
    return this.prisma.instanceSettings.upsert({ where: { id: ROW }, create: { id: ROW, ...changes }, update: changes });
  }

  /**
   * The first workspace: the oldest one, which on an instance set up with LAZYBOY_APP_TOKEN is the first
   * admin's `home` (workspaces are never deleted). Null on an empty database.
   */
  async firstWorkspaceId(): Promise<string | null> {
    const first = await this.prisma.workspace.findFirst({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: { id: true } });
    return first?.id ?? null;
  }
}
