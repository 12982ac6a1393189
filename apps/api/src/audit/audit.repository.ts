import { Injectable } from '@nestjs/common';
import type { Prisma } from '../persistence/generated/client.js';
import { PrismaService } from '../persistence/prisma.service.js';

export interface AuditRow {
  workspaceId: string | null;
  actorUserId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  metadata: Prisma.InputJsonObject;
  ip: string | null;
}

@Injectable()
export class AuditRepository {
  constructor(private readonly prisma: PrismaService) {}

  async insert(row: AuditRow): Promise<void> {
    await this.prisma.auditLog.create({ data: row });
  }
}
