import { Injectable } from '@nestjs/common';
import {
  isFinalRunStatus,
  type AdminAuditQuery,
  type AdminComputerListQuery,
  type AdminComputerView,
  type AdminRunListQuery,
  type AdminRunView,
  type AdminUserListView,
  type AdminUserView,
  type AdminWorkspaceListView,
  type AuditEntryView,
  type MemberView,
  type MembershipRole,
  type PageQuery,
  type RunView,
  type UpdateAdminUserRequest,
} from '@lazyboy/contracts';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../auth/principal.js';
import { conflict, notFound } from '../common/api-error.js';
import { ComputersService } from '../computers/computers.service.js';
import { RunsService } from '../runs/runs.service.js';
import { toRunView } from '../runs/run-views.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { MembershipChanges } from '../tenancy/membership-changes.js';
import { TenancyRepository } from '../tenancy/tenancy.repository.js';
import { toAdminComputerView, toAdminUserView, toAdminWorkspaceView, toAuditEntryView } from './admin-views.js';
import { AdminRepository } from './admin.repository.js';

/**
 * The admin dashboard: every account, workspace, computer and run of the instance. The guard admits
 * instance administrators only (@AdminOnly on the controller); every change is written to the audit log.
 */
@Injectable()
export class AdminService {
  constructor(
    private readonly repo: AdminRepository,
    private readonly tenancy: TenancyRepository,
    private readonly memberships: MembershipChanges,
    private readonly realtime: RealtimePublisher,
    private readonly computerService: ComputersService,
    private readonly runService: RunsService,
    private readonly audit: AuditService,
  ) {}

  // ----------------------------------------------------------------------------------------- users

  async users({ limit, before }: PageQuery): Promise<AdminUserListView> {
    const rows = await this.repo.users(limit, before);
    const page = rows.slice(0, limit);
    return { items: page.map(toAdminUserView), nextBefore: rows.length > limit ? page[page.length - 1]!.id : null };
  }

  async updateUser(principal: Principal, userId: string, request: UpdateAdminUserRequest, ip?: string): Promise<AdminUserView> {
    const user = await this.repo.user(userId);
    if (!user) throw notFound('user');
    // Refusing both keeps at least one working administrator: the one asking.
    if (userId === principal.userId && request.isAdmin === false)
      throw conflict('own_admin_rights', 'you cannot remove your own admin rights');
    if (userId === principal.userId && request.disabled === true)
      throw conflict('own_account_disabled', 'you cannot disable your own account');

    const change: { isAdmin?: boolean; disabledAt?: Date | null } = {};
    const details: Record<string, boolean> = {};
    if (request.isAdmin !== undefined && request.isAdmin !== user.isAdmin) {
      change.isAdmin = request.isAdmin;
      details.isAdmin = request.isAdmin;
    }
    if (request.disabled !== undefined && request.disabled !== (user.disabledAt !== null)) {
      change.disabledAt = request.disabled ? new Date() : null;
      details.disabled = request.disabled;
    }
    if (Object.keys(details).length === 0) return toAdminUserView(user);

    await this.repo.updateUser(userId, change, new Date());
    await this.audit.record({
      actorUserId: principal.userId,
      action: 'admin.user.update',
      targetType: 'user',
      targetId: userId,
      details,
      ip,
    });
    // A disabled user's sockets go with their sessions (the repository revoked those).
    if (change.disabledAt) await this.realtime.disconnectUser(userId);
    const updated = await this.repo.user(userId);
    if (!updated) throw notFound('user');
    return toAdminUserView(updated);
  }

  // ------------------------------------------------------------------------------------ workspaces

  async workspaces({ limit, before }: PageQuery): Promise<AdminWorkspaceListView> {
    const rows = await this.repo.workspaces(limit, before);
    const page = rows.slice(0, limit);
    return { items: page.map(toAdminWorkspaceView), nextBefore: rows.length > limit ? page[page.length - 1]!.id : null };
  }

  /**
   * An instance admin changes a member's role in any workspace, member or not: the same write as
   * WorkspacesService.changeRole (MembershipChanges, with its last-owner rule), without the membership
   * check of the caller.
   */
  async changeMemberRole(
    principal: Principal,
    workspaceId: string,
    userId: string,
    role: MembershipRole,
    ip?: string,
  ): Promise<MemberView> {
    if (!(await this.repo.workspaceExists(workspaceId))) throw notFound('workspace');
    const target = await this.tenancy.member(workspaceId, userId);
    if (!target) throw notFound('member');
    return this.memberships.applyRoleChange(workspaceId, target, role, {
      userId: principal.userId,
      action: 'admin.member.role_change',
      ip,
    });
  }

  // ------------------------------------------------------------------------------------- computers

  async computers({ limit, workspaceId }: AdminComputerListQuery): Promise<AdminComputerView[]> {
    return (await this.repo.computers(limit, workspaceId)).map(toAdminComputerView);
  }

  /** Stops any computer (its home is kept). ComputersService.stop does not audit; its agent route does, so we do here. */
  async stopComputer(principal: Principal, computerId: string, ip?: string): Promise<AdminComputerView> {
    const computer = await this.repo.computer(computerId);
    if (!computer) throw notFound('computer');
    await this.computerService.stop(computerId);
    await this.audit.record({
      workspaceId: computer.workspaceId,
      actorUserId: principal.userId,
      action: 'computer.stop',
      targetType: 'computer',
      targetId: computerId,
      details: { by: 'instance_admin', from: computer.state },
      ip,
    });
    const after = await this.repo.computer(computerId);
    if (!after) throw notFound('computer');
    return toAdminComputerView(after);
  }

  // ------------------------------------------------------------------------------------------ runs

  async runs(query: AdminRunListQuery): Promise<AdminRunView[]> {
    return (await this.repo.runs(query)).map((run) => ({
      ...toRunView(run),
      agentName: run.agent.name,
      workspaceName: run.workspace.name,
    }));
  }

  /** Stops any run: at once when no executor holds it, at the next safe boundary otherwise. */
  async stopRun(principal: Principal, runId: string, ip?: string): Promise<RunView> {
    const before = await this.repo.run(runId);
    if (!before) throw notFound('run');
    if (isFinalRunStatus(before.status)) throw conflict('run_ended', `the run already ended (${before.status})`);
    const run = await this.runService.stop(runId);
    await this.audit.record({
      workspaceId: run.workspaceId,
      actorUserId: principal.userId,
      action: 'run.stop',
      targetType: 'run',
      targetId: runId,
      details: { by: 'instance_admin', from: before.status },
      ip,
    });
    return toRunView(run);
  }

  // ----------------------------------------------------------------------------------------- audit

  async auditLog({ limit, action, workspaceId }: AdminAuditQuery): Promise<AuditEntryView[]> {
    return (await this.repo.audit(limit, { action, workspaceId })).map(toAuditEntryView);
  }
}
