import { Injectable } from '@nestjs/common';
import type { MembershipRole } from '@lazyboy/contracts';
import { ApiError, notFound } from '../common/api-error.js';
import type { Principal } from '../auth/principal.js';
import { TenancyRepository } from './tenancy.repository.js';

const RANK: Record<MembershipRole, number> = { member: 0, admin: 1, owner: 2 };

/** Whether `role` is `least` or above (owner > admin > member). */
export function hasRole(role: MembershipRole, least: MembershipRole): boolean {
  return RANK[role] >= RANK[least];
}

/** Membership checks for routes that name a workspace (list or create inside it). */
@Injectable()
export class WorkspaceAccess {
  constructor(private readonly tenancy: TenancyRepository) {}

  /**
   * The caller's role in the workspace. NOT_FOUND when they are not a member (or their token is limited to
   * another workspace): a foreign workspace looks like a missing one. FORBIDDEN when the role is too low.
   */
  async require(principal: Principal, workspaceId: string, least: MembershipRole = 'member'): Promise<MembershipRole> {
    if (principal.tokenWorkspaceId && principal.tokenWorkspaceId !== workspaceId) throw notFound('workspace');
    const role = await this.tenancy.roleOf(principal.userId, workspaceId);
    if (!role) throw notFound('workspace');
    if (!hasRole(role, least)) throw new ApiError('FORBIDDEN', `this needs the ${least} role in the workspace`);
    return role;
  }
}
