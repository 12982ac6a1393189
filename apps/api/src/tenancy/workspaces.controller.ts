import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  addMemberRequestSchema,
  createWorkspaceRequestSchema,
  memberListViewSchema,
  memberViewSchema,
  updateMemberRequestSchema,
  updateWorkspaceRequestSchema,
  workspaceListViewSchema,
  workspaceViewSchema,
  type AddMemberRequest,
  type CreateWorkspaceRequest,
  type MemberListView,
  type MemberView,
  type UpdateMemberRequest,
  type UpdateWorkspaceRequest,
  type WorkspaceListView,
  type WorkspaceView,
} from '@lazyboy/contracts';
import { ClientIp } from '../auth/client-ip.js';
import { CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody } from '../common/zod-params.js';
import { WorkspacesService } from './workspaces.service.js';

const tag = 'workspaces';

@Controller('api/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get()
  @ApiRoute({ summary: 'The workspaces the caller is a member of, with their role', response: workspaceListViewSchema, tag })
  async list(@CurrentPrincipal() principal: Principal): Promise<WorkspaceListView> {
    return { items: await this.workspaces.list(principal) };
  }

  @Post()
  @ApiRoute({ summary: 'Create a workspace; the caller becomes its owner', response: workspaceViewSchema, status: 201, tag })
  create(
    @CurrentPrincipal() principal: Principal,
    @ZodBody(createWorkspaceRequestSchema) body: CreateWorkspaceRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<WorkspaceView> {
    return this.workspaces.create(principal, body.name, ip);
  }

  @Get(':workspaceId')
  @ApiRoute({
    summary:
      "One workspace of the caller with its settings (members see only whether its agents have a model, not the model's settings)",
    response: workspaceViewSchema,
    tag,
  })
  get(@CurrentPrincipal() principal: Principal, @IdParam('workspaceId') workspaceId: string): Promise<WorkspaceView> {
    return this.workspaces.get(principal, workspaceId);
  }

  @Patch(':workspaceId')
  @ApiRoute({
    summary: "Change a workspace's settings (admin or owner): name, time zone, model settings and key",
    response: workspaceViewSchema,
    tag,
  })
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @ZodBody(updateWorkspaceRequestSchema) body: UpdateWorkspaceRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<WorkspaceView> {
    return this.workspaces.update(principal, workspaceId, body, ip);
  }

  @Get(':workspaceId/members')
  @ApiRoute({ summary: 'Members of a workspace and their roles', response: memberListViewSchema, tag })
  async members(@CurrentPrincipal() principal: Principal, @IdParam('workspaceId') workspaceId: string): Promise<MemberListView> {
    return { items: await this.workspaces.members(principal, workspaceId) };
  }

  @Post(':workspaceId/members')
  @ApiRoute({ summary: 'Add an existing user by email (admin or owner)', response: memberViewSchema, status: 201, tag })
  addMember(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @ZodBody(addMemberRequestSchema) body: AddMemberRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<MemberView> {
    return this.workspaces.addMember(principal, workspaceId, body, ip);
  }

  @Patch(':workspaceId/members/:userId')
  @ApiRoute({
    summary: "Change a member's role (admin or owner; owners only for the owner role)",
    response: memberViewSchema,
    tag,
  })
  changeRole(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @IdParam('userId') userId: string,
    @ZodBody(updateMemberRequestSchema) body: UpdateMemberRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<MemberView> {
    return this.workspaces.changeRole(principal, workspaceId, userId, body.role, ip);
  }

  @Delete(':workspaceId/members/:userId')
  @HttpCode(204)
  @ApiRoute({ summary: 'Remove a member (admin or owner), or leave the workspace yourself', status: 204, tag })
  async removeMember(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @IdParam('userId') userId: string,
    @ClientIp() ip: string | undefined,
  ): Promise<void> {
    await this.workspaces.removeMember(principal, workspaceId, userId, ip);
  }
}
