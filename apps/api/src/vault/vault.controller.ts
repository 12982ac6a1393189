import { Controller, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import {
  agentVaultViewSchema,
  createVaultAccountRequestSchema,
  updateVaultAccountRequestSchema,
  vaultAccountViewSchema,
  vaultGrantsRequestSchema,
  vaultImportRequestSchema,
  vaultImportResultSchema,
  vaultRevealRequestSchema,
  vaultRevealViewSchema,
  vaultTotpCodeViewSchema,
  type AgentVaultView,
  type CreateVaultAccountRequest,
  type UpdateVaultAccountRequest,
  type VaultAccountView,
  type VaultGrantsRequest,
  type VaultImportRequest,
  type VaultImportResult,
  type VaultRevealRequest,
  type VaultRevealView,
  type VaultTotpCodeView,
} from '@lazyboy/contracts';
import { z } from 'zod';
import { ClientIp } from '../auth/client-ip.js';
import { CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody } from '../common/zod-params.js';
import { VaultService } from './vault.service.js';

const tag = 'vault';

@Controller('api')
export class VaultController {
  constructor(private readonly vault: VaultService) {}

  @Get('agents/:agentId/vault')
  @ApiRoute({
    summary: "An agent's saved logins and the shared ones it may use (never a password)",
    response: agentVaultViewSchema,
    tag,
  })
  agentVault(@CurrentPrincipal() principal: Principal, @IdParam('agentId') agentId: string): Promise<AgentVaultView> {
    return this.vault.agentVault(principal, agentId);
  }

  @Post('agents/:agentId/vault')
  @ApiRoute({
    summary: 'Save a login for an agent (409 when its site and username are saved already)',
    response: vaultAccountViewSchema,
    status: 201,
    tag,
  })
  createForAgent(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agentId') agentId: string,
    @ZodBody(createVaultAccountRequestSchema) body: CreateVaultAccountRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<VaultAccountView> {
    return this.vault.createForAgent(principal, agentId, body, ip);
  }

  @Post('agents/:agentId/vault/import')
  @HttpCode(200)
  @ApiRoute({
    summary: "Import a browser's or password manager's CSV export into an agent's vault",
    response: vaultImportResultSchema,
    tag,
  })
  importForAgent(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agentId') agentId: string,
    @ZodBody(vaultImportRequestSchema) body: VaultImportRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<VaultImportResult> {
    return this.vault.importForAgent(principal, agentId, body, ip);
  }

  @Get('workspaces/:workspaceId/vault')
  @ApiRoute({ summary: "The workspace's shared logins (never a password)", response: z.array(vaultAccountViewSchema), tag })
  shared(@CurrentPrincipal() principal: Principal, @IdParam('workspaceId') workspaceId: string): Promise<VaultAccountView[]> {
    return this.vault.sharedAccounts(principal, workspaceId);
  }

  @Post('workspaces/:workspaceId/vault')
  @ApiRoute({ summary: 'Save a shared login of the workspace (owners)', response: vaultAccountViewSchema, status: 201, tag })
  createShared(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @ZodBody(createVaultAccountRequestSchema) body: CreateVaultAccountRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<VaultAccountView> {
    return this.vault.createShared(principal, workspaceId, body, ip);
  }

  @Post('workspaces/:workspaceId/vault/import')
  @HttpCode(200)
  @ApiRoute({
    summary: "Import a CSV export into the workspace's shared logins (owners)",
    response: vaultImportResultSchema,
    tag,
  })
  importShared(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @ZodBody(vaultImportRequestSchema) body: VaultImportRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<VaultImportResult> {
    return this.vault.importShared(principal, workspaceId, body, ip);
  }

  @Patch('vault/:accountId')
  @ApiRoute({
    summary: 'Change a saved login; password and TOTP are write-only (shared logins: owners)',
    response: vaultAccountViewSchema,
    tag,
  })
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('accountId') accountId: string,
    @ZodBody(updateVaultAccountRequestSchema) body: UpdateVaultAccountRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<VaultAccountView> {
    return this.vault.update(principal, accountId, body, ip);
  }

  @Delete('vault/:accountId')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete a saved login (shared logins: owners)', status: 204, tag })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @IdParam('accountId') accountId: string,
    @ClientIp() ip: string | undefined,
  ): Promise<void> {
    await this.vault.remove(principal, accountId, ip);
  }

  @Put('vault/:accountId/agents')
  @ApiRoute({ summary: 'Which agents may use a shared login (owners)', response: vaultAccountViewSchema, tag })
  setGrants(
    @CurrentPrincipal() principal: Principal,
    @IdParam('accountId') accountId: string,
    @ZodBody(vaultGrantsRequestSchema) body: VaultGrantsRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<VaultAccountView> {
    return this.vault.setGrants(principal, accountId, body, ip);
  }

  @Post('vault/:accountId/reveal')
  @HttpCode(200)
  @ApiRoute({
    summary: "A saved login's password and TOTP secret, for an owner who re-enters their own password",
    response: vaultRevealViewSchema,
    tag,
  })
  reveal(
    @CurrentPrincipal() principal: Principal,
    @IdParam('accountId') accountId: string,
    @ZodBody(vaultRevealRequestSchema) body: VaultRevealRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<VaultRevealView> {
    return this.vault.reveal(principal, accountId, body, ip);
  }

  @Get('vault/:accountId/totp')
  @ApiRoute({ summary: 'The current one-time code of a saved login with a TOTP secret', response: vaultTotpCodeViewSchema, tag })
  currentCode(
    @CurrentPrincipal() principal: Principal,
    @IdParam('accountId') accountId: string,
    @ClientIp() ip: string | undefined,
  ): Promise<VaultTotpCodeView> {
    return this.vault.currentCode(principal, accountId, ip);
  }
}
