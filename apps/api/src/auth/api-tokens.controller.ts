import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import {
  apiTokenListViewSchema,
  createApiTokenRequestSchema,
  createdApiTokenViewSchema,
  type ApiTokenListView,
  type CreateApiTokenRequest,
  type CreatedApiTokenView,
} from '@lazyboy/contracts';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody } from '../common/zod-params.js';
import { ApiTokensService } from './api-tokens.service.js';
import { ClientIp } from './client-ip.js';
import { CurrentPrincipal, type Principal } from './principal.js';

const tag = 'auth';

@Controller('api/auth/tokens')
export class ApiTokensController {
  constructor(private readonly tokens: ApiTokensService) {}

  @Post()
  @ApiRoute({ summary: 'Create an API token (shown only in this answer)', response: createdApiTokenViewSchema, status: 201, tag })
  create(
    @CurrentPrincipal() principal: Principal,
    @ZodBody(createApiTokenRequestSchema) body: CreateApiTokenRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<CreatedApiTokenView> {
    return this.tokens.create(principal, body, ip);
  }

  @Get()
  @ApiRoute({ summary: "The caller's API tokens, without their secrets", response: apiTokenListViewSchema, tag })
  async list(@CurrentPrincipal() principal: Principal): Promise<ApiTokenListView> {
    return { items: await this.tokens.list(principal) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiRoute({ summary: 'Revoke an API token', status: 204, tag })
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
    @ClientIp() ip: string | undefined,
  ): Promise<void> {
    await this.tokens.revoke(principal, id, ip);
  }
}
