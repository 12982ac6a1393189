import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  botViewSchema,
  createBotRequestSchema,
  updateBotRequestSchema,
  type BotView,
  type CreateBotRequest,
  type UpdateBotRequest,
} from '@lazyboy/contracts';
import { z } from 'zod';
import { ClientIp } from '../auth/client-ip.js';
import { CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody } from '../common/zod-params.js';
import { BotsService } from './bots.service.js';

@Controller('api/workspaces/:workspaceId/bots')
export class WorkspaceBotsController {
  constructor(private readonly bots: BotsService) {}

  @Get()
  @ApiRoute({ summary: 'List the agents of a workspace, oldest first', response: z.array(botViewSchema), tag: 'bots' })
  list(@CurrentPrincipal() principal: Principal, @IdParam('workspaceId') workspaceId: string): Promise<BotView[]> {
    return this.bots.list(principal, workspaceId);
  }

  @Post()
  @ApiRoute({ summary: 'Create an agent (409 when the name is taken)', response: botViewSchema, status: 201, tag: 'bots' })
  create(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @ZodBody(createBotRequestSchema) body: CreateBotRequest,
  ): Promise<BotView> {
    return this.bots.create(principal, workspaceId, body);
  }
}

@Controller('api/bots')
export class BotsController {
  constructor(private readonly bots: BotsService) {}

  @Get(':botId')
  @ApiRoute({ summary: 'One agent', response: botViewSchema, tag: 'bots' })
  get(@CurrentPrincipal() principal: Principal, @IdParam('botId') botId: string): Promise<BotView> {
    return this.bots.getForPrincipal(principal, botId);
  }

  @Patch(':botId')
  @ApiRoute({
    summary: 'Change an agent: name, avatar, instructions, model settings and key, computer mode',
    response: botViewSchema,
    tag: 'bots',
  })
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('botId') botId: string,
    @ZodBody(updateBotRequestSchema) body: UpdateBotRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<BotView> {
    return this.bots.update(principal, botId, body, ip);
  }

  @Delete(':botId')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete an agent with its sessions, runs and memory', status: 204, tag: 'bots' })
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('botId') botId: string): Promise<void> {
    await this.bots.remove(principal, botId);
  }
}
