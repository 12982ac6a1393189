import { Injectable } from '@nestjs/common';
import type { MembershipRole } from '@lazyboy/contracts';
import type { Prisma } from '../persistence/generated/client.js';
import { isUniqueViolation } from '../persistence/prisma-errors.js';
import { PrismaService } from '../persistence/prisma.service.js';

export interface WorkspaceWithRole {
  id: string;
  name: string;
  slug: string;
  role: MembershipRole;
  timezone: string;
  memberCount: number;
  createdAt: Date;
  updatedAt: Date;
  modelSettings: Prisma.JsonValue;
  modelApiKeyCipher: Uint8Array | null;
}

/** A workspace's own settings as the settings route reads and writes them. */
export interface WorkspaceSettingsRow {
  name: string;
  timezone: string;
  modelSettings: Prisma.JsonValue;
  modelApiKeyCipher: Uint8Array | null;
}

export interface WorkspaceSettingsChanges {
  name?: string;
  timezone?: string;
  modelSettings?: Prisma.InputJsonObject;
  /** null removes the stored key. */
  modelApiKeyCipher?: Uint8Array<ArrayBuffer> | null;
}

export interface MemberRow {
  userId: string;
  email: string;
  displayName: string;
  role: MembershipRole;
  joinedAt: Date;
}

/**
 * Why a membership change was refused (the service turns these into API errors). `changed`: the member no
 * longer has the role the caller's permission check saw, or is gone.
 */
export type MembershipChangeRefusal = 'changed' | 'last_owner';

/** A membership change either refused, or applied with the count of invitations it revoked. */
export type MembershipChangeOutcome = { refused: MembershipChangeRefusal } | { revokedInvitations: number };

type Tx = Prisma.TransactionClient;

@Injectable()
export class TenancyRepository {
  constructor(private readonly prisma: PrismaService) {}

  async roleOf(userId: string, workspaceId: string): Promise<MembershipRole | null> {
    const membership = await this.prisma.membership.findUnique({
      where: { workspaceId_userId: { workspaceId, userId } },
      select: { role: true },
    });
    return membership?.role ?? null;
  }

  /** The user's workspaces, oldest membership first; only `onlyWorkspaceId` when given. */
  async workspacesOf(userId: string, onlyWorkspaceId?: string | null): Promise<WorkspaceWithRole[]> {
    const memberships = await this.prisma.membership.findMany({
      where: { userId, ...(onlyWorkspaceId ? { workspaceId: onlyWorkspaceId } : {}) },
      orderBy: { createdAt: 'asc' },
      include: { workspace: { include: { _count: { select: { memberships: true } } } } },
    });
    return memberships.map(({ role, workspace }) => ({
      id: workspace.id,
      name: workspace.name,
      slug: workspace.slug,
      role,
      timezone: workspace.timezone,
      memberCount: workspace._count.memberships,
      createdAt: workspace.createdAt,
      updatedAt: workspace.updatedAt,
      modelSettings: workspace.modelSettings,
      modelApiKeyCipher: workspace.modelApiKeyCipher,
    }));
  }

  async workspaceOf(userId: string, workspaceId: string): Promise<WorkspaceWithRole | null> {
    return (await this.workspacesOf(userId, workspaceId))[0] ?? null;
  }

  async userIdByEmail(email: string): Promise<string | null> {
    const user = await this.prisma.user.findUnique({ where: { email }, select: { id: true } });
    return user?.id ?? null;
  }

  async slugTaken(slug: string): Promise<boolean> {
    return (await this.prisma.workspace.count({ where: { slug } })) > 0;
  }

  /** A workspace and its owner's membership, together. Throws Prisma's unique violation when the slug is taken. */
  async createWorkspace(ownerUserId: string, name: string, slug: string): Promise<string> {
    const workspace = await this.prisma.workspace.create({
      data: { name, slug, memberships: { create: { userId: ownerUserId, role: 'owner' } } },
      select: { id: true },
    });
    return workspace.id;
  }

  /**
   * Changes a workspace's settings from what they are now: `decide` sees the row locked (FOR UPDATE), so a
   * key and the endpoint it was meant for cannot be changed apart by two requests at once. Answers the row
   * before and after; null when the workspace is gone.
   */
  async updateSettings<T>(
    workspaceId: string,
    decide: (current: WorkspaceSettingsRow) => { changes: WorkspaceSettingsChanges; result: T },
  ): Promise<{ before: WorkspaceSettingsRow; result: T } | null> {
    return this.prisma.$transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      const before = await tx.workspace.findUnique({
        where: { id: workspaceId },
        select: { name: true, timezone: true, modelSettings: true, modelApiKeyCipher: true },
      });
      if (!before) return null;
      const { changes, result } = decide(before);
      if (Object.keys(changes).length > 0) await tx.workspace.update({ where: { id: workspaceId }, data: changes });
      return { before, result };
    });
  }

  async members(workspaceId: string): Promise<MemberRow[]> {
    const rows = await this.prisma.membership.findMany({
      where: { workspaceId },
      orderBy: { createdAt: 'asc' },
      include: { user: { select: { email: true, displayName: true } } },
    });
    return rows.map((row) => ({
      userId: row.userId,
      email: row.user.email,
      displayName: row.user.displayName,
      role: row.role,
      joinedAt: row.createdAt,
    }));
  }

  async member(workspaceId: string, userId: string): Promise<MemberRow | null> {
    const row = await this.prisma.membership.findUnique({
      where: { workspaceId_userId: { workspaceId, userId } },
      include: { user: { select: { email: true, displayName: true } } },
    });
    return row
      ? { userId: row.userId, email: row.user.email, displayName: row.user.displayName, role: row.role, joinedAt: row.createdAt }
      : null;
  }

  /** Adds a member; false when they already are one. */
  async addMember(workspaceId: string, userId: string, role: MembershipRole): Promise<boolean> {
    try {
      await this.prisma.membership.create({ data: { workspaceId, userId, role } });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /**
   * Changes a member's role if it still is `from` (the role the permission check saw), refusing to leave the
   * workspace without an owner. The workspace row is locked first, so two owners demoting each other at
   * once cannot both succeed. The member's pending invitations their new role could not send are revoked
   * with it (see revokeInvitationsBeyond).
   */
  async changeRole(
    workspaceId: string,
    userId: string,
    from: MembershipRole,
    to: MembershipRole,
  ): Promise<MembershipChangeOutcome> {
    return this.prisma
      .$transaction(async (tx): Promise<MembershipChangeOutcome> => {
        await lockWorkspace(tx, workspaceId);
        const updated = await tx.membership.updateMany({ where: { workspaceId, userId, role: from }, data: { role: to } });
        if (updated.count === 0) return { refused: 'changed' };
        if ((await ownerCount(tx, workspaceId)) === 0) throw new LastOwnerRollback();
        return { revokedInvitations: await revokeInvitationsBeyond(tx, workspaceId, userId, to) };
      })
      .catch(rollbackToRefusal);
  }

  /**
   * Removes a member if their role still is `role`, refusing to remove the last owner (same locking as
   * changeRole), and revokes the invitations they sent that are still pending.
   */
  async removeMember(workspaceId: string, userId: string, role: MembershipRole): Promise<MembershipChangeOutcome> {
    return this.prisma
      .$transaction(async (tx): Promise<MembershipChangeOutcome> => {
        await lockWorkspace(tx, workspaceId);
        const removed = await tx.membership.deleteMany({ where: { workspaceId, userId, role } });
        if (removed.count === 0) return { refused: 'changed' };
        if ((await ownerCount(tx, workspaceId)) === 0) throw new LastOwnerRollback();
        return { revokedInvitations: await revokeInvitationsBeyond(tx, workspaceId, userId, null) };
      })
      .catch(rollbackToRefusal);
  }
}

/** Thrown inside a transaction to undo a change that would leave no owner. */
class LastOwnerRollback extends Error {}

function rollbackToRefusal(error: unknown): MembershipChangeOutcome {
  if (error instanceof LastOwnerRollback) return { refused: 'last_owner' };
  throw error;
}

/**
 * Locks the workspace's row for the transaction: every change of who is in it, with which role, and of
 * its invitations takes this lock first, so such changes happen one after the other.
 */
export async function lockWorkspace(tx: Tx, workspaceId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM "Workspace" WHERE "id" = ${workspaceId}::uuid FOR UPDATE`;
}

function ownerCount(tx: Tx, workspaceId: string): Promise<number> {
  return tx.membership.count({ where: { workspaceId, role: 'owner' } });
}

/** The invitation roles a member with `role` may send: admins invite members and admins, owners anyone. */
export function invitableRoles(role: MembershipRole | null): MembershipRole[] {
  if (role === 'owner') return ['owner', 'admin', 'member'];
  if (role === 'admin') return ['admin', 'member'];
  return [];
}

/**
 * Revokes the pending invitations `userId` sent in the workspace that their role (`role`; null: no longer
 * a member) may not send, so that nobody keeps a way back in, or to a higher role, through a link they made
 * before. revokedById stays null: nobody revoked them by hand. Returns how many.
 */
async function revokeInvitationsBeyond(
  tx: Tx,
  workspaceId: string,
  userId: string,
  role: MembershipRole | null,
): Promise<number> {
  const keep = invitableRoles(role);
  if (keep.length === 3) return 0;
  const revoked = await tx.invitation.updateMany({
    where: { workspaceId, invitedById: userId, acceptedAt: null, revokedAt: null, role: { notIn: keep } },
    data: { revokedAt: new Date() },
  });
  return revoked.count;
}
