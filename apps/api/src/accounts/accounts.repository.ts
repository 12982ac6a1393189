import { Injectable } from '@nestjs/common';
import { PrismaService } from '../persistence/prisma.service.js';

/** What a sign-in checks about an account. */
export interface LoginAccount {
  id: string;
  email: string;
  displayName: string;
  isAdmin: boolean;
  passwordHash: string | null;
  disabledAt: Date | null;
}

export interface NewAccount {
  email: string;
  displayName: string;
  passwordHash: string;
  workspaceName: string;
  workspaceSlug: string;
}

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

  async findForLogin(email: string): Promise<LoginAccount | null> {
    return this.prisma.user.findUnique({
      where: { email },
      select: { id: true, email: true, displayName: true, isAdmin: true, passwordHash: true, disabledAt: true },
    });
  }

  async emailTaken(email: string): Promise<boolean> {
    return (await this.prisma.user.count({ where: { email } })) > 0;
  }

  /**
   * A user and a personal workspace they own, all or nothing. Throws Prisma's unique violation when the
   * email or the slug is taken.
   */
  async createWithWorkspace(account: NewAccount): Promise<{ userId: string; workspaceId: string }> {
    return this.prisma.$transaction(async (tx) => {
      const user = await tx.user.create({
        data: { email: account.email, displayName: account.displayName, passwordHash: account.passwordHash },
        select: { id: true },
      });
      const workspace = await tx.workspace.create({
        data: {
          name: account.workspaceName,
          slug: account.workspaceSlug,
          memberships: { create: { userId: user.id, role: 'owner' } },
        },
        select: { id: true },
      });
      return { userId: user.id, workspaceId: workspace.id };
    });
  }

  async markLoggedIn(userId: string, at: Date): Promise<void> {
    await this.prisma.user.update({ where: { id: userId }, data: { lastLoginAt: at } });
  }
}
