import { Injectable } from '@nestjs/common';
import { INVITATION_ENDED_LISTED, INVITATION_PENDING_LIMIT, type MembershipRole } from '@lazyboy/contracts';
import type { Prisma } from '../persistence/generated/client.js';
import { isUniqueViolation } from '../persistence/prisma-errors.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { invitableRoles, lockWorkspace } from '../tenancy/tenancy.repository.js';

type Tx = Prisma.TransactionClient;

/** An invitation as the workspace's admins see it (never its token: only the hash is stored). */
export interface InvitationRow {
  id: string;
  workspaceId: string;
  email: string;
  role: MembershipRole;
  invitedBy: { userId: string; displayName: string } | null;
  expiresAt: Date;
  createdAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}

/** What an invitation link's holder may learn. */
export interface InvitationPreviewRow {
  workspaceName: string;
  role: MembershipRole;
  inviterDisplayName: string | null;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}

/** Why an invitation cannot be accepted. */
export type AcceptRefusal = 'not_found' | 'used' | 'revoked' | 'expired' | 'email_mismatch' | 'already_member';
/** Why an invitation cannot be made. `inviter_changed`: the caller lost the role their permission check saw. */
export type CreateRefusal = 'already_member' | 'too_many' | 'inviter_changed' | 'replaces_higher_role';

export interface NewInvitation {
  workspaceId: string;
  email: string;
  role: MembershipRole;
  tokenHash: string;
  invitedById: string;
  expiresAt: Date;
}

/** A new account made through an invitation (the invitation's email). */
export interface InvitedAccount {
  email: string;
  displayName: string;
  passwordHash: string;
}

export interface Accepted {
  invitationId: string;
  workspaceId: string;
  role: MembershipRole;
  userId: string;
}

const withInviter = { invitedBy: { select: { id: true, displayName: true } } } as const;

type InvitationWithInviter = Prisma.InvitationGetPayload<{ include: typeof withInviter }>;

/** Undoes an accepting transaction (the claimed invitation included) and says why. */
class AcceptRollback extends Error {
  constructor(readonly refusal: AcceptRefusal) {
    super(refusal);
  }
}

@Injectable()
export class InvitationsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Stores an invitation under the workspace's lock (the one membership changes take): the inviter must
   * still hold a role that may send it, the email must not be a member's, a pending invitation for the same
   * email is revoked (replaced: its link was lost, most likely) unless its role is one the inviter may not
   * send (refused: replacing would revoke what they may not), and the workspace stays within
   * INVITATION_PENDING_LIMIT pending ones. Returns the row and the ids it replaced.
   */
  async create(invitation: NewInvitation): Promise<{ row: InvitationRow; replaced: string[] } | { refused: CreateRefusal }> {
    return this.prisma.$transaction(async (tx) => {
      const { workspaceId, email, invitedById } = invitation;
      await lockWorkspace(tx, workspaceId);
      const inviter = await tx.membership.findUnique({
        where: { workspaceId_userId: { workspaceId, userId: invitedById } },
        select: { role: true },
      });
      if (!invitableRoles(inviter?.role ?? null).includes(invitation.role)) return { refused: 'inviter_changed' as const };
      if ((await tx.membership.count({ where: { workspaceId, user: { email } } })) > 0)
        return { refused: 'already_member' as const };
      const now = new Date();
      // Expired ones stay as they are: they say so in the list.
      const open = { workspaceId, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } };
      // Refused before anything is written; the ones this one replaces free their places.
      const others = await tx.invitation.count({ where: { ...open, email: { not: email } } });
      if (others >= INVITATION_PENDING_LIMIT) return { refused: 'too_many' as const };
      const pending = await tx.invitation.findMany({ where: { ...open, email }, select: { id: true, role: true } });
      // Replacing revokes: an admin may not revoke an owner's invitation for an owner this way either.
      if (pending.some((row) => !invitableRoles(inviter?.role ?? null).includes(row.role)))
        return { refused: 'replaces_higher_role' as const };
      const replaced = pending.map((row) => row.id);
      if (replaced.length > 0) {
        await tx.invitation.updateMany({
          where: { ...open, id: { in: replaced } },
          data: { revokedAt: now, revokedById: invitedById },
        });
      }
      const created = await tx.invitation.create({ data: invitation, include: withInviter });
      return { row: toRow(created), replaced };
    });
  }

  /** Every pending invitation of the workspace, then the INVITATION_ENDED_LISTED most recent ended ones; newest first. */
  async list(workspaceId: string): Promise<InvitationRow[]> {
    const now = new Date();
    const [pending, ended] = await Promise.all([
      this.prisma.invitation.findMany({
        where: { workspaceId, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
        orderBy: { createdAt: 'desc' },
        include: withInviter,
      }),
      this.prisma.invitation.findMany({
        where: { workspaceId, OR: [{ acceptedAt: { not: null } }, { revokedAt: { not: null } }, { expiresAt: { lte: now } }] },
        orderBy: { createdAt: 'desc' },
        take: INVITATION_ENDED_LISTED,
        include: withInviter,
      }),
    ]);
    return [...pending, ...ended].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || cmp(b.id, a.id)).map(toRow);
  }

  /** One invitation of the workspace (an id of another workspace finds nothing). */
  async find(workspaceId: string, invitationId: string): Promise<InvitationRow | null> {
    const row = await this.prisma.invitation.findFirst({ where: { id: invitationId, workspaceId }, include: withInviter });
    return row ? toRow(row) : null;
  }

  /** Revokes the invitation if it is still open (one conditional UPDATE); false when it was accepted or revoked meanwhile. */
  async revoke(workspaceId: string, invitationId: string, revokedById: string): Promise<boolean> {
    const revoked = await this.prisma.invitation.updateMany({
      where: { id: invitationId, workspaceId, acceptedAt: null, revokedAt: null },
      data: { revokedAt: new Date(), revokedById },
    });
    return revoked.count === 1;
  }

  async preview(tokenHash: string): Promise<InvitationPreviewRow | null> {
    const row = await this.prisma.invitation.findUnique({
      where: { tokenHash },
      select: {
        role: true,
        expiresAt: true,
        acceptedAt: true,
        revokedAt: true,
        workspace: { select: { name: true } },
        invitedBy: { select: { displayName: true } },
      },
    });
    return row
      ? {
          workspaceName: row.workspace.name,
          role: row.role,
          inviterDisplayName: row.invitedBy?.displayName ?? null,
          expiresAt: row.expiresAt,
          acceptedAt: row.acceptedAt,
          revokedAt: row.revokedAt,
        }
      : null;
  }

  /**
   * Why the invitation cannot be accepted for `email` now, or null while it can: its state first (a used
   * link says so to whoever holds it), then the email. A read: the claim decides.
   */
  async check(tokenHash: string, email: string): Promise<AcceptRefusal | null> {
    const row = await this.prisma.invitation.findUnique({
      where: { tokenHash },
      select: { email: true, acceptedAt: true, revokedAt: true, expiresAt: true },
    });
    if (!row) return 'not_found';
    if (row.acceptedAt) return 'used';
    if (row.revokedAt) return 'revoked';
    if (row.expiresAt.getTime() <= Date.now()) return 'expired';
    if (row.email !== email) return 'email_mismatch';
    return null;
  }

  /**
   * Why a claim found nothing, read after it (so a claim that waited on a concurrent one reads it accepted).
   * Claimable by our clock but not by the database's, which the claim goes by: expired.
   */
  private async refusalFor(tokenHash: string, email: string): Promise<AcceptRefusal> {
    return (await this.check(tokenHash, email)) ?? 'expired';
  }

  /** An existing user joins the invitation's workspace: the claim and the membership in one transaction. */
  async acceptForUser(tokenHash: string, email: string, userId: string): Promise<Accepted | { refused: AcceptRefusal }> {
    let accepted: Accepted | null;
    try {
      accepted = await this.prisma.$transaction(async (tx) => {
        const claimed = await claim(tx, tokenHash, email, userId);
        if (!claimed) return null;
        const member = await tx.membership.findUnique({
          where: { workspaceId_userId: { workspaceId: claimed.workspaceId, userId } },
          select: { id: true },
        });
        if (member) throw new AcceptRollback('already_member');
        await tx.membership.create({ data: { workspaceId: claimed.workspaceId, userId, role: claimed.role } });
        return { invitationId: claimed.id, workspaceId: claimed.workspaceId, role: claimed.role, userId };
      });
    } catch (error) {
      // Added to the workspace by other means between our check and our insert.
      if (isUniqueViolation(error)) return { refused: 'already_member' };
      if (error instanceof AcceptRollback) return { refused: error.refusal };
      throw error;
    }
    return accepted ?? { refused: await this.refusalFor(tokenHash, email) };
  }

  /**
   * A new account that joins the invitation's workspace, all or nothing: the invitation is claimed first, so
   * that a second sign-up through the same link waits on its row and then finds it used.
   */
  async acceptWithNewAccount(
    tokenHash: string,
    account: InvitedAccount,
  ): Promise<Accepted | { refused: AcceptRefusal | 'email_taken' }> {
    let accepted: Accepted | null;
    try {
      accepted = await this.prisma.$transaction(async (tx) => {
        const claimed = await claim(tx, tokenHash, account.email, null);
        if (!claimed) return null;
        const user = await tx.user.create({ data: account, select: { id: true } });
        await tx.invitation.update({ where: { id: claimed.id }, data: { acceptedById: user.id } });
        await tx.membership.create({ data: { workspaceId: claimed.workspaceId, userId: user.id, role: claimed.role } });
        return { invitationId: claimed.id, workspaceId: claimed.workspaceId, role: claimed.role, userId: user.id };
      });
    } catch (error) {
      // The only unique key the transaction can hit after the claim: the email, taken meanwhile.
      if (isUniqueViolation(error)) return { refused: 'email_taken' };
      throw error;
    }
    return accepted ?? { refused: await this.refusalFor(tokenHash, account.email) };
  }
}

/**
 * Marks the invitation accepted if, at this moment, it is for `email`, neither accepted nor revoked, and not
 * expired by the database's clock: one conditional UPDATE, so of two concurrent claims the second waits on
 * the row's lock, re-reads it accepted and claims nothing.
 */
async function claim(
  tx: Tx,
  tokenHash: string,
  email: string,
  userId: string | null,
): Promise<{ id: string; workspaceId: string; role: MembershipRole } | null> {
  const rows = await tx.$queryRaw<{ id: string; workspaceId: string; role: MembershipRole }[]>`
    UPDATE "Invitation"
       SET "acceptedAt" = now(), "acceptedById" = ${userId}::uuid
     WHERE "tokenHash" = ${tokenHash} AND "email" = ${email}
       AND "acceptedAt" IS NULL AND "revokedAt" IS NULL AND "expiresAt" > now()
 RETURNING "id", "workspaceId", "role"::text AS "role"`;
  return rows[0] ?? null;
}

function toRow(row: InvitationWithInviter): InvitationRow {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    email: row.email,
    role: row.role,
    invitedBy: row.invitedBy ? { userId: row.invitedBy.id, displayName: row.invitedBy.displayName } : null,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
    acceptedAt: row.acceptedAt,
    revokedAt: row.revokedAt,
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
