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

/** A user with a personal workspace they own. */
export interface NewAccount {
  email: string;
  displayName: string;
  passwordHash: string;
  workspaceName: string;
  workspaceSlug: string;
  /** Instance administrator: only the first admin is created as one. */
  isAdmin?: boolean;
  /** Recorded in the same transaction (the first admin's `admin.bootstrap`); sign-up audits on its own. */
  auditAction?: string;
}

@Injectable()
export class AccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async countUsers(): Promise<number> {
    return this.prisma.user.count();
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
        data: {
          email: account.email,
          displayName: account.displayName,
          passwordHash: account.passwordHash,
          isAdmin: account.isAdmin ?? false,
        },
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
      if (account.auditAction) {
        await tx.auditLog.create({
          data: {
            workspaceId: workspace.id,
            actorUserId: user.id,
            action: account.auditAction,
            targetType: 'user',
            targetId: user.id,
          },
        });
      }
      return { userId: user.id, workspaceId: workspace.id };
    });
  }

  /** The user's password hash, for a person confirming it is them; null without a password. */
  async passwordHashOf(userId: string): Promise<string | null> {
    return (await this.prisma.user.findUnique({ where: { id: userId }, select: { passwordHash: true } }))?.passwordHash ?? null;
  }

  async markLoggedIn(userId: string, at: Date): Promise<void> {
    await this.prisma.user.update({ where: { id: userId }, data: { lastLoginAt: at } });
  }
}
