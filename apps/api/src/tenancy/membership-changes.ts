import { Injectable } from '@nestjs/common';
import type { MemberView, MembershipRole } from '@lazyboy/contracts';
import { AuditService } from '../audit/audit.service.js';
import { ApiError, conflict, notFound } from '../common/api-error.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { TenancyRepository, type MemberRow, type MembershipChangeOutcome } from './tenancy.repository.js';
import { toMemberView } from './workspace-views.js';

/** Who made a membership change, for the audit log. */
export interface MembershipActor {
  userId: string;
  action: string;
  ip?: string;
}

/**
 * Membership writes once the caller's permission has been checked: by WorkspacesService for workspace
 * members, by AdminService for instance administrators. Each write only applies while the target still
 * has the role the permission check saw (409 CONFLICT otherwise), never leaves a workspace without an owner,
 * and revokes the target's pending invitations their new role could not send (none remain after a removal).
 */
@Injectable()
export class MembershipChanges {
  constructor(
    private readonly tenancy: TenancyRepository,
    private readonly audit: AuditService,
    private readonly realtime: RealtimePublisher,
  ) {}

  async applyRoleChange(
    workspaceId: string,
    target: MemberRow,
    role: MembershipRole,
    actor: MembershipActor,
  ): Promise<MemberView> {
    if (target.role === role) return toMemberView(target);
    const revoked = applied(await this.tenancy.changeRole(workspaceId, target.userId, target.role, role));
    await this.audit.record({
      workspaceId,
      actorUserId: actor.userId,
      action: actor.action,
      targetType: 'user',
      targetId: target.userId,
      details: { from: target.role, to: role, ...revokedDetail(revoked) },
      ip: actor.ip,
    });
    const member = await this.tenancy.member(workspaceId, target.userId);
    // Removed between our write and this read by someone else: it is gone for the caller too.
    if (!member) throw notFound('member');
    return toMemberView(member);
  }

  /** Removes the member and closes their sockets, which may still be in the workspace's rooms. */
  async applyRemoval(workspaceId: string, target: MemberRow, actor: MembershipActor): Promise<void> {
    const revoked = applied(await this.tenancy.removeMember(workspaceId, target.userId, target.role));
    await this.audit.record({
      workspaceId,
      actorUserId: actor.userId,
      action: actor.action,
      targetType: 'user',
      targetId: target.userId,
      details: { role: target.role, ...revokedDetail(revoked) },
      ip: actor.ip,
    });
    await this.realtime.disconnectUser(target.userId);
  }
}

/** The count of invitations the change revoked; throws the refusal's API error. */
function applied(outcome: MembershipChangeOutcome): number {
  if (!('refused' in outcome)) return outcome.revokedInvitations;
  if (outcome.refused === 'changed')
    throw conflict('member_changed', 'the member was changed or removed meanwhile: reload and try again');
  throw lastOwner();
}

/** Invitations the member sent that their new role may not send are revoked with the change: the audit row says how many. */
function revokedDetail(count: number): { revokedInvitations?: number } {
  return count > 0 ? { revokedInvitations: count } : {};
}

function lastOwner(): ApiError {
  return conflict('last_owner', 'a workspace needs at least one owner: make someone else owner first');
}
