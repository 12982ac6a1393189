import { Injectable } from '@nestjs/common';
import type { MemberView, MembershipRole } from '@lazyboy/contracts';
import { AuditService } from '../audit/audit.service.js';
import { ApiError, conflict, notFound } from '../common/api-error.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { TenancyRepository, type MemberRow, type MembershipChangeRefusal } from './tenancy.repository.js';
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
 * has the role the permission check saw (409 CONFLICT otherwise), and never leaves a workspace without an owner.
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
    refuse(await this.tenancy.changeRole(workspaceId, target.userId, target.role, role));
    await this.audit.record({
      workspaceId,
      actorUserId: actor.userId,
      action: actor.action,
      targetType: 'user',
      targetId: target.userId,
      details: { from: target.role, to: role },
      ip: actor.ip,
    });
    const member = await this.tenancy.member(workspaceId, target.userId);
    // Removed between our write and this read by someone else: it is gone for the caller too.
    if (!member) throw notFound('member');
    return toMemberView(member);
  }

  /** Removes the member and closes their sockets, which may still be in the workspace's rooms. */
  async applyRemoval(workspaceId: string, target: MemberRow, actor: MembershipActor): Promise<void> {
    refuse(await this.tenancy.removeMember(workspaceId, target.userId, target.role));
    await this.audit.record({
      workspaceId,
      actorUserId: actor.userId,
      action: actor.action,
      targetType: 'user',
      targetId: target.userId,
      details: { role: target.role },
      ip: actor.ip,
    });
    await this.realtime.disconnectUser(target.userId);
  }
}

function refuse(refusal: MembershipChangeRefusal | null): void {
  if (refusal === 'changed')
    throw conflict('member_changed', 'the member was changed or removed meanwhile: reload and try again');
  if (refusal === 'last_owner') throw lastOwner();
}

function lastOwner(): ApiError {
  return conflict('last_owner', 'a workspace needs at least one owner: make someone else owner first');
}
