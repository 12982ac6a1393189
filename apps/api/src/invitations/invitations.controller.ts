import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import {
  createdInvitationViewSchema,
  createInvitationRequestSchema,
  invitationListViewSchema,
  invitationPreviewViewSchema,
  invitationTokenSchema,
  workspaceSummaryViewSchema,
  type CreatedInvitationView,
  type CreateInvitationRequest,
  type InvitationListView,
  type InvitationPreviewView,
  type WorkspaceSummaryView,
} from '@lazyboy/contracts';
import { ClientIp } from '../auth/client-ip.js';
import { CurrentPrincipal, Public, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, SecretParam, ZodBody } from '../common/zod-params.js';
import { InvitationsService } from './invitations.service.js';

const tag = 'invitations';

@Controller('api')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Get('workspaces/:workspaceId/invitations')
  @ApiRoute({
    summary: 'Pending invitations, then the latest ended ones (admin or owner); never their tokens',
    response: invitationListViewSchema,
    tag,
  })
  async list(@CurrentPrincipal() principal: Principal, @IdParam('workspaceId') workspaceId: string): Promise<InvitationListView> {
    return { items: await this.invitations.list(principal, workspaceId) };
  }

  @Post('workspaces/:workspaceId/invitations')
  @ApiRoute({
    summary: 'Invite an email with a role (admin or owner; owners only for the owner role): the link is in this answer only',
    response: createdInvitationViewSchema,
    status: 201,
    tag,
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @ZodBody(createInvitationRequestSchema) body: CreateInvitationRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<CreatedInvitationView> {
    return this.invitations.create(principal, workspaceId, body, ip);
  }

  @Delete('workspaces/:workspaceId/invitations/:invitationId')
  @HttpCode(204)
  @ApiRoute({ summary: 'Revoke an invitation (admin or owner; owners only for the owner role)', status: 204, tag })
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @IdParam('invitationId') invitationId: string,
    @ClientIp() ip: string | undefined,
  ): Promise<void> {
    await this.invitations.revoke(principal, workspaceId, invitationId, ip);
  }

  @Public()
  @Get('invitations/:token')
  @ApiRoute({
    summary: "An invitation link's workspace, role, inviter and whether it is still valid (rate-limited per address)",
    response: invitationPreviewViewSchema,
    tag,
  })
  preview(
    @SecretParam('token', invitationTokenSchema, 'invitation') token: string,
    @ClientIp() ip: string | undefined,
  ): Promise<InvitationPreviewView> {
    return this.invitations.preview(token, ip);
  }

  @Post('invitations/:token/accept')
  @HttpCode(200)
  @ApiRoute({
    summary: "Accept an invitation sent to the signed-in account's email: join its workspace with its role",
    response: workspaceSummaryViewSchema,
    tag,
  })
  accept(
    @CurrentPrincipal() principal: Principal,
    @SecretParam('token', invitationTokenSchema, 'invitation') token: string,
    @ClientIp() ip: string | undefined,
  ): Promise<WorkspaceSummaryView> {
    return this.invitations.accept(principal, token, ip);
  }
}
