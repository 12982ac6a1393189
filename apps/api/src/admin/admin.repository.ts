import { Injectable } from '@nestjs/common';
import type { RunStatus } from '@lazyboy/contracts';
import type { AuditLog, Computer, ComputerScreen, Membership, Run, User } from '../persistence/generated/client.js';
import { PrismaService } from '../persistence/prisma.service.js';

export type AdminUserRow = User & {
  memberships: (Membership & { workspace: { id: string; name: string; slug: string } })[];
};

export interface AdminWorkspaceRow {
  id: string;
  name: string;
  slug: string;
  createdAt: Date;
  memberCount: number;
  agentCount: number;
}

export type AdminComputerRow = Computer & {
  screens: ComputerScreen[];
  workspace: { name: string };
  agent: { name: string } | null;
};

export type AuditRow = AuditLog & { actor: { email: string } | null };

export interface RunFilter {
  status?: RunStatus;
  workspaceId?: string;
  agentId?: string;
  limit: number;
}

const userInclude = {
  memberships: { orderBy: { createdAt: 'asc' }, include: { workspace: { select: { id: true, name: true, slug: true } } } },
} as const;

const computerInclude = {
  screens: { orderBy: { slot: 'asc' } },
  workspace: { select: { name: true } },
  agent: { select: { name: true } },
} as const;

/** A run with its agent's and workspace's names. */
export type AdminRunRow = Run & { agent: { name: string }; workspace: { name: string } };

/** The instance-wide reads and writes of the admin dashboard: no workspace scoping, on purpose. */
@Injectable()
export class AdminRepository {
  constructor(private readonly prisma: PrismaService) {}

  // ----------------------------------------------------------------------------------------- users

  /** Newest first (ids are UUIDv7, so id order is creation order); one extra row tells whether more exist. */
  async users(limit: number, before?: string): Promise<AdminUserRow[]> {
    return this.prisma.user.findMany({
      where: before ? { id: { lt: before } } : {},
      orderBy: { id: 'desc' },
      take: limit + 1,
      include: userInclude,
    });
  }

  async user(id: string): Promise<AdminUserRow | null> {
    return this.prisma.user.findUnique({ where: { id }, include: userInclude });
  }

  /**
   * Applies an admin's change to an account. Disabling also revokes, in the same transaction, every live
   * login session and API token (no cookie or token outlives the decision, re-enabling brings none back)
   * and every pending invitation the account sent (revokedById null: its sender lost the right to invite),
   * so nobody joins on the word of a disabled account.
   */
  async updateUser(id: string, change: { isAdmin?: boolean; disabledAt?: Date | null }, now: Date): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.user.update({ where: { id }, data: change });
      if (change.disabledAt) {
        await tx.loginSession.updateMany({ where: { userId: id, revokedAt: null }, data: { revokedAt: now } });
        await tx.apiToken.updateMany({ where: { userId: id, revokedAt: null }, data: { revokedAt: now } });
        await tx.invitation.updateMany({
          where: { invitedById: id, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
          data: { revokedAt: now, revokedById: null },
        });
      }
    });
  }

  // ------------------------------------------------------------------------------------ workspaces

  async workspaces(limit: number, before?: string): Promise<AdminWorkspaceRow[]> {
    const rows = await this.prisma.workspace.findMany({
      where: before ? { id: { lt: before } } : {},
      orderBy: { id: 'desc' },
      take: limit + 1,
      select: { id: true, name: true, slug: true, createdAt: true, _count: { select: { memberships: true, agents: true } } },
    });
    return rows.map(({ _count, ...row }) => ({ ...row, memberCount: _count.memberships, agentCount: _count.agents }));
  }

  async workspaceExists(id: string): Promise<boolean> {
    return (await this.prisma.workspace.count({ where: { id } })) > 0;
  }

  // ------------------------------------------------------------------------------------- computers

  async computers(limit: number, workspaceId?: string): Promise<AdminComputerRow[]> {
    return this.prisma.computer.findMany({
      where: workspaceId ? { workspaceId } : {},
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
      include: computerInclude,
    });
  }

  async computer(id: string): Promise<AdminComputerRow | null> {
    return this.prisma.computer.findUnique({ where: { id }, include: computerInclude });
  }

  // ------------------------------------------------------------------------------------------ runs

  async runs({ status, workspaceId, agentId, limit }: RunFilter): Promise<AdminRunRow[]> {
    return this.prisma.run.findMany({
      where: { ...(status ? { status } : {}), ...(workspaceId ? { workspaceId } : {}), ...(agentId ? { agentId } : {}) },
      include: { agent: { select: { name: true } }, workspace: { select: { name: true } } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
    });
  }

  async run(id: string): Promise<Run | null> {
    return this.prisma.run.findUnique({ where: { id } });
  }

  // ----------------------------------------------------------------------------------------- audit

  async audit(limit: number, filter: { action?: string; workspaceId?: string }): Promise<AuditRow[]> {
    return this.prisma.auditLog.findMany({
      where: {
        ...(filter.action ? { action: filter.action } : {}),
        ...(filter.workspaceId ? { workspaceId: filter.workspaceId } : {}),
      },
      orderBy: { id: 'desc' },
      take: limit,
      include: { actor: { select: { email: true } } },
    });
  }
}
