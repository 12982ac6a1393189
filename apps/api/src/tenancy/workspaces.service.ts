import { Injectable } from '@nestjs/common';
import type { AddMemberRequest, MemberView, MembershipRole, WorkspaceSummaryView, WorkspaceView } from '@lazyboy/contracts';
import { ApiError, conflict, forbidden, notFound } from '../common/api-error.js';
import type { Principal } from '../auth/principal.js';
import { AuditService } from '../audit/audit.service.js';
import { isUniqueViolation, TenancyRepository } from './tenancy.repository.js';
import { WorkspaceAccess } from './workspace-access.js';
import { slugBase, slugWithSuffix } from './workspace-slug.js';
import { toMemberView, toSummary, toView } from './workspace-views.js';

const SLUG_ATTEMPTS = 5;

/** Workspaces and their members. Every route naming a workspace answers 404 to non-members. */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly tenancy: TenancyRepository,
    private readonly access: WorkspaceAccess,
    private readonly audit: AuditService,
  ) {}

  async list(principal: Principal): Promise<WorkspaceSummaryView[]> {
    const workspaces = await this.tenancy.workspacesOf(principal.userId, principal.tokenWorkspaceId);
    return workspaces.map(toSummary);
  }

  async create(principal: Principal, name: string, ip?: string): Promise<WorkspaceView> {
    if (principal.tokenWorkspaceId) throw forbidden('this API token is limited to one workspace');
    const workspaceId = await this.createWithUniqueSlug(principal.userId, name);
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: 'workspace.create',
      targetType: 'workspace',
      targetId: workspaceId,
      details: { name },
      ip,
    });
    return this.get(principal, workspaceId);
  }

  async get(principal: Principal, workspaceId: string): Promise<WorkspaceView> {
    await this.access.require(principal, workspaceId);
    const workspace = await this.tenancy.workspaceOf(principal.userId, workspaceId);
    if (!workspace) throw notFound('workspace');
    return toView(workspace);
  }

  async rename(principal: Principal, workspaceId: string, name: string, ip?: string): Promise<WorkspaceView> {
    await this.access.require(principal, workspaceId, 'admin');
    await this.tenancy.renameWorkspace(workspaceId, name);
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: 'workspace.rename',
      targetType: 'workspace',
      targetId: workspaceId,
      details: { name },
      ip,
    });
    return this.get(principal, workspaceId);
  }

  async members(principal: Principal, workspaceId: string): Promise<MemberView[]> {
    await this.access.require(principal, workspaceId);
    return (await this.tenancy.members(workspaceId)).map(toMemberView);
  }

  async addMember(principal: Principal, workspaceId: string, request: AddMemberRequest, ip?: string): Promise<MemberView> {
    const callerRole = await this.access.require(principal, workspaceId, 'admin');
    if (request.role === 'owner' && callerRole !== 'owner') throw forbidden('only owners may add owners');
    const userId = await this.tenancy.userIdByEmail(request.email);
    if (!userId) throw notFound('user');
    if (!(await this.tenancy.addMember(workspaceId, userId, request.role))) throw conflict('already a member of this workspace');
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: 'member.add',
      targetType: 'user',
      targetId: userId,
      details: { role: request.role },
      ip,
    });
    return this.memberView(workspaceId, userId);
  }

  async changeRole(
    principal: Principal,
    workspaceId: string,
    userId: string,
    role: MembershipRole,
    ip?: string,
  ): Promise<MemberView> {
    const callerRole = await this.access.require(principal, workspaceId, 'admin');
    const target = await this.tenancy.member(workspaceId, userId);
    if (!target) throw notFound('member');
    if ((target.role === 'owner' || role === 'owner') && callerRole !== 'owner') {
      throw forbidden('only owners may grant or revoke the owner role');
    }
    if (target.role === role) return toMemberView(target);
    const refusal = await this.tenancy.changeRole(workspaceId, userId, role);
    if (refusal === 'not_member') throw notFound('member');
    if (refusal === 'last_owner') throw lastOwner();
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: 'member.role_change',
      targetType: 'user',
      targetId: userId,
      details: { from: target.role, to: role },
      ip,
    });
    return this.memberView(workspaceId, userId);
  }

  /** Admins remove members (only owners remove owners); anyone may leave. The last owner may do neither. */
  async removeMember(principal: Principal, workspaceId: string, userId: string, ip?: string): Promise<void> {
    const leaving = userId === principal.userId;
    const callerRole = await this.access.require(principal, workspaceId, leaving ? 'member' : 'admin');
    const target = await this.tenancy.member(workspaceId, userId);
    if (!target) throw notFound('member');
    if (!leaving && target.role === 'owner' && callerRole !== 'owner') throw forbidden('only owners may remove owners');
    const refusal = await this.tenancy.removeMember(workspaceId, userId);
    if (refusal === 'not_member') throw notFound('member');
    if (refusal === 'last_owner') throw lastOwner();
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: leaving ? 'member.leave' : 'member.remove',
      targetType: 'user',
      targetId: userId,
      details: { role: target.role },
      ip,
    });
  }

  private async memberView(workspaceId: string, userId: string): Promise<MemberView> {
    const member = await this.tenancy.member(workspaceId, userId);
    // Removed between our write and this read by someone else: it is gone for the caller too.
    if (!member) throw notFound('member');
    return toMemberView(member);
  }

  private async createWithUniqueSlug(ownerUserId: string, name: string): Promise<string> {
    const base = slugBase(name);
    let slug = (await this.tenancy.slugTaken(base)) ? slugWithSuffix(base) : base;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.tenancy.createWorkspace(ownerUserId, name, slug);
      } catch (error) {
        // Someone took the slug between our check and our insert.
        if (!isUniqueViolation(error) || attempt >= SLUG_ATTEMPTS) throw error;
        slug = slugWithSuffix(base);
      }
    }
  }
}

function lastOwner(): ApiError {
  return conflict('a workspace needs at least one owner: make someone else owner first');
}
