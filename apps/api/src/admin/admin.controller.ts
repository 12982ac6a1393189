import { Controller, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  adminAuditListViewSchema,
  adminAuditQuerySchema,
  adminComputerListQuerySchema,
  adminComputerListViewSchema,
  adminComputerViewSchema,
  adminRunListQuerySchema,
  adminRunListViewSchema,
  adminUserListQuerySchema,
  adminUserListViewSchema,
  adminUserViewSchema,
  adminWorkspaceListQuerySchema,
  adminWorkspaceListViewSchema,
  instanceSettingsViewSchema,
  memberViewSchema,
  runViewSchema,
  updateAdminUserRequestSchema,
  updateInstanceSettingsRequestSchema,
  updateMemberRequestSchema,
  type AdminAuditListView,
  type AdminAuditQuery,
  type AdminComputerListQuery,
  type AdminComputerListView,
  type AdminComputerView,
  type AdminRunListQuery,
  type AdminRunListView,
  type AdminUserListView,
  type AdminUserView,
  type AdminWorkspaceListView,
  type InstanceSettingsView,
  type MemberView,
  type PageQuery,
  type RunView,
  type UpdateAdminUserRequest,
  type UpdateInstanceSettingsRequest,
  type UpdateMemberRequest,
} from '@lazyboy/contracts';
import { ClientIp } from '../auth/client-ip.js';
import { AdminOnly, CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody, ZodQuery } from '../common/zod-params.js';
import { InstanceSettingsService } from '../instance/instance-settings.service.js';
import { AdminService } from './admin.service.js';

const tag = 'admin';

/** The admin dashboard's endpoints: instance administrators only (403 FORBIDDEN for everyone else). */
@Controller('api/admin')
@AdminOnly()
export class AdminController {
  constructor(
    private readonly admin: AdminService,
    private readonly settings: InstanceSettingsService,
  ) {}

  @Get('settings')
  @ApiRoute({
    summary: "The instance's settings: whether agents may use local model servers, who may sign up",
    response: instanceSettingsViewSchema,
    tag,
  })
  instanceSettings(): Promise<InstanceSettingsView> {
    return this.settings.view();
  }

  @Patch('settings')
  @ApiRoute({
    summary: 'Allow or refuse local model servers for every agent, set who may sign up (audited)',
    response: instanceSettingsViewSchema,
    tag,
  })
  updateInstanceSettings(
    @CurrentPrincipal() principal: Principal,
    @ZodBody(updateInstanceSettingsRequestSchema) body: UpdateInstanceSettingsRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<InstanceSettingsView> {
    return this.settings.update(principal, body, ip);
  }

  @Get('users')
  @ApiRoute({ summary: 'Every account, newest first, with its workspace memberships', response: adminUserListViewSchema, tag })
  users(@ZodQuery(adminUserListQuerySchema) query: PageQuery): Promise<AdminUserListView> {
    return this.admin.users(query);
  }

  @Patch('users/:userId')
  @ApiRoute({
    summary: 'Grant or revoke instance admin, disable or re-enable an account (not your own)',
    response: adminUserViewSchema,
    tag,
  })
  updateUser(
    @CurrentPrincipal() principal: Principal,
    @IdParam('userId') userId: string,
    @ZodBody(updateAdminUserRequestSchema) body: UpdateAdminUserRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<AdminUserView> {
    return this.admin.updateUser(principal, userId, body, ip);
  }

  @Get('workspaces')
  @ApiRoute({
    summary: 'Every workspace, newest first, with member and agent counts',
    response: adminWorkspaceListViewSchema,
    tag,
  })
  workspaces(@ZodQuery(adminWorkspaceListQuerySchema) query: PageQuery): Promise<AdminWorkspaceListView> {
    return this.admin.workspaces(query);
  }

  @Patch('workspaces/:workspaceId/members/:userId')
  @ApiRoute({ summary: "Change a member's role in any workspace (the last owner keeps it)", response: memberViewSchema, tag })
  changeMemberRole(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @IdParam('userId') userId: string,
    @ZodBody(updateMemberRequestSchema) body: UpdateMemberRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<MemberView> {
    return this.admin.changeMemberRole(principal, workspaceId, userId, body.role, ip);
  }

  @Get('computers')
  @ApiRoute({ summary: 'Every computer with its state, screens and memory', response: adminComputerListViewSchema, tag })
  async computers(@ZodQuery(adminComputerListQuerySchema) query: AdminComputerListQuery): Promise<AdminComputerListView> {
    return { items: await this.admin.computers(query) };
  }

  @Post('computers/:computerId/stop')
  @HttpCode(200)
  @ApiRoute({ summary: 'Stop a computer (its home is kept)', response: adminComputerViewSchema, tag })
  stopComputer(
    @CurrentPrincipal() principal: Principal,
    @IdParam('computerId') computerId: string,
    @ClientIp() ip: string | undefined,
  ): Promise<AdminComputerView> {
    return this.admin.stopComputer(principal, computerId, ip);
  }

  @Get('runs')
  @ApiRoute({
    summary: 'Runs of every workspace, newest first, filtered by status, workspace or agent',
    response: adminRunListViewSchema,
    tag,
  })
  async runs(@ZodQuery(adminRunListQuerySchema) query: AdminRunListQuery): Promise<AdminRunListView> {
    return { items: await this.admin.runs(query) };
  }

  @Post('runs/:runId/stop')
  @HttpCode(200)
  @ApiRoute({ summary: 'Stop any run (at the next safe boundary if it is executing)', response: runViewSchema, tag })
  stopRun(
    @CurrentPrincipal() principal: Principal,
    @IdParam('runId') runId: string,
    @ClientIp() ip: string | undefined,
  ): Promise<RunView> {
    return this.admin.stopRun(principal, runId, ip);
  }

  @Get('audit')
  @ApiRoute({
    summary: 'The audit log, newest first, optionally one action or workspace',
    response: adminAuditListViewSchema,
    tag,
  })
  async audit(@ZodQuery(adminAuditQuerySchema) query: AdminAuditQuery): Promise<AdminAuditListView> {
    return { items: await this.admin.auditLog(query) };
  }
}
