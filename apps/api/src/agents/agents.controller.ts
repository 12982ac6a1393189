import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  agentViewSchema,
  createAgentRequestSchema,
  updateAgentRequestSchema,
  type AgentView,
  type CreateAgentRequest,
  type UpdateAgentRequest,
} from '@lazyboy/contracts';
import { z } from 'zod';
import { ClientIp } from '../auth/client-ip.js';
import { CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody } from '../common/zod-params.js';
import { AgentsService } from './agents.service.js';

@Controller('api/workspaces/:workspaceId/agents')
export class WorkspaceAgentsController {
  constructor(private readonly agents: AgentsService) {}

  @Get()
  @ApiRoute({ summary: 'List the agents of a workspace, oldest first', response: z.array(agentViewSchema), tag: 'agents' })
  list(@CurrentPrincipal() principal: Principal, @IdParam('workspaceId') workspaceId: string): Promise<AgentView[]> {
    return this.agents.list(principal, workspaceId);
  }

  @Post()
  @ApiRoute({ summary: 'Create an agent (409 when the name is taken)', response: agentViewSchema, status: 201, tag: 'agents' })
  create(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @ZodBody(createAgentRequestSchema) body: CreateAgentRequest,
  ): Promise<AgentView> {
    return this.agents.create(principal, workspaceId, body);
  }
}

@Controller('api/agents')
export class AgentsController {
  constructor(private readonly agents: AgentsService) {}

  @Get(':agentId')
  @ApiRoute({ summary: 'One agent', response: agentViewSchema, tag: 'agents' })
  get(@CurrentPrincipal() principal: Principal, @IdParam('agentId') agentId: string): Promise<AgentView> {
    return this.agents.getForPrincipal(principal, agentId);
  }

  @Patch(':agentId')
  @ApiRoute({
    summary: 'Change an agent: name, avatar, instructions, model settings and key, computer mode',
    response: agentViewSchema,
    tag: 'agents',
  })
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agentId') agentId: string,
    @ZodBody(updateAgentRequestSchema) body: UpdateAgentRequest,
    @ClientIp() ip: string | undefined,
  ): Promise<AgentView> {
    return this.agents.update(principal, agentId, body, ip);
  }

  @Delete(':agentId')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete an agent with its chats, runs and memory', status: 204, tag: 'agents' })
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('agentId') agentId: string): Promise<void> {
    await this.agents.remove(principal, agentId);
  }
}
