import { Injectable } from '@nestjs/common';
import { PrismaService } from '../persistence/prisma.service.js';

export interface FirstAdmin {
  email: string;
  displayName: string;
  passwordHash: string;
  workspaceName: string;
  workspaceSlug: string;
}

@Injectable()
export class AccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async countUsers(): Promise<number> {
    return this.prisma.user.count();
  }

  /**
   * Creates the instance admin, a first workspace they own, and the audit row, all or nothing.
   * Returns false when a user with that email already exists (another API replica won the race).
   */
  async createFirstAdmin(admin: FirstAdmin): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.user.findUnique({ where: { email: admin.email }, select: { id: true } });
      if (existing) return false;
      const user = await tx.user.create({
        data: { email: admin.email, displayName: admin.displayName, passwordHash: admin.passwordHash, isAdmin: true },
      });
      const workspace = await tx.workspace.create({ data: { name: admin.workspaceName, slug: admin.workspaceSlug } });
      await tx.membership.create({ data: { userId: user.id, workspaceId: workspace.id, role: 'owner' } });
      await tx.auditLog.create({
        data: {
          workspaceId: workspace.id,
          actorUserId: user.id,
          action: 'admin.bootstrap',
          targetType: 'user',
          targetId: user.id,
        },
      });
      return true;
    });
  }
}
