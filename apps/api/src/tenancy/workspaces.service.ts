import { Injectable } from '@nestjs/common';
import type { AddMemberRequest, MemberView, MembershipRole, WorkspaceSummaryView, WorkspaceView } from '@lazyboy/contracts';
import { conflict, forbidden, notFound } from '../common/api-error.js';
import type { Principal } from '../auth/principal.js';
import { AuditService } from '../audit/audit.service.js';
import { MembershipChanges } from './membership-changes.js';
import { TenancyRepository, type MemberRow } from './tenancy.repository.js';
import { WorkspaceAccess } from './workspace-access.js';
import { createWithUniqueSlug } from './workspace-slug.js';
import { toMemberView, toSummary, toView } from './workspace-views.js';

/** Workspaces and their members. Every route naming a workspace answers 404 to non-members. */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly tenancy: TenancyRepository,
    private readonly access: WorkspaceAccess,
    private readonly changes: MembershipChanges,
    private readonly audit: AuditService,
  ) {}

  async list(principal: Principal): Promise<WorkspaceSummaryView[]> {
    const workspaces = await this.tenancy.workspacesOf(principal.userId, principal.tokenWorkspaceId);
    return workspaces.map(toSummary);
  }

  async create(principal: Principal, name: string, ip?: string): Promise<WorkspaceView> {
    if (principal.tokenWorkspaceId) throw forbidden('this API token is limited to one workspace');
    const workspaceId = await createWithUniqueSlug(
      name,
      (slug) => this.tenancy.slugTaken(slug),
      (slug) => this.tenancy.createWorkspace(principal.userId, name, slug),
    );
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: 'workspace.create',
      targetType: 'workspace',
      targetId: workspaceId,
      details: { name },
      ip,
    });
    return this.view(principal.userId, workspaceId);
  }

  /** One query: the membership read that finds the workspace also is the access check. */
  async get(principal: Principal, workspaceId: string): Promise<WorkspaceView> {
    if (principal.tokenWorkspaceId && principal.tokenWorkspaceId !== workspaceId) throw notFound('workspace');
    return this.view(principal.userId, workspaceId);
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
    return this.view(principal.userId, workspaceId);
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
    if (!(await this.tenancy.addMember(workspaceId, userId, request.role)))
      throw conflict('already_member', 'already a member of this workspace');
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: 'member.add',
      targetType: 'user',
      targetId: userId,
      details: { role: request.role },
      ip,
    });
    const member = await this.tenancy.member(workspaceId, userId);
    // Removed between our write and this read by someone else: it is gone for the caller too.
    if (!member) throw notFound('member');
    return toMemberView(member);
  }

  async changeRole(
    principal: Principal,
    workspaceId: string,
    userId: string,
    role: MembershipRole,
    ip?: string,
  ): Promise<MemberView> {
    const callerRole = await this.access.require(principal, workspaceId, 'admin');
    const target = await this.target(workspaceId, userId);
    if ((target.role === 'owner' || role === 'owner') && callerRole !== 'owner') {
      throw forbidden('only owners may grant or revoke the owner role');
    }
    return this.changes.applyRoleChange(workspaceId, target, role, {
      userId: principal.userId,
      action: 'member.role_change',
      ip,
    });
  }

  /** Admins remove members (only owners remove owners); anyone may leave. The last owner may do neither. */
  async removeMember(principal: Principal, workspaceId: string, userId: string, ip?: string): Promise<void> {
    const leaving = userId === principal.userId;
    const callerRole = await this.access.require(principal, workspaceId, leaving ? 'member' : 'admin');
    const target = await this.target(workspaceId, userId);
    if (!leaving && target.role === 'owner' && callerRole !== 'owner') throw forbidden('only owners may remove owners');
    await this.changes.applyRemoval(workspaceId, target, {
      userId: principal.userId,
      action: leaving ? 'member.leave' : 'member.remove',
      ip,
    });
  }

  private async target(workspaceId: string, userId: string): Promise<MemberRow> {
    const target = await this.tenancy.member(workspaceId, userId);
    if (!target) throw notFound('member');
    return target;
  }

  private async view(userId: string, workspaceId: string): Promise<WorkspaceView> {
    const workspace = await this.tenancy.workspaceOf(userId, workspaceId);
    if (!workspace) throw notFound('workspace');
    return toView(workspace);
  }
}
