import { Injectable } from '@nestjs/common';
import { PrismaService } from '../persistence/prisma.service.js';
import type { ModelLinkRow } from './model-chain.js';

/** A workspace's model settings and sealed key, for the credential chain and the settings page's checks. */
@Injectable()
export class WorkspaceModelRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The workspace's model row; null when it does not exist. Callers check membership first. */
  modelRow(workspaceId: string): Promise<ModelLinkRow | null> {
    return this.prisma.workspace.findUnique({
      where: { id: workspaceId },
      select: { modelSettings: true, modelApiKeyCipher: true },
    });
  }
}
