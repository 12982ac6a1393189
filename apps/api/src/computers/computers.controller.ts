import { Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import {
  agentComputerViewSchema,
  computerListResponseSchema,
  type AgentComputerView,
  type ComputerListResponse,
} from '@lazyboy/contracts';
import type { Request } from 'express';
import { clientIpOf } from '../auth/client-ip.js';
import { CurrentPrincipal, type Principal } from '../auth/principal.js';
import { AuditService } from '../audit/audit.service.js';
import { conflict } from '../common/api-error.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam } from '../common/zod-params.js';
import { WorkspaceAccess } from '../tenancy/workspace-access.js';
import { ComputersRepository, type AgentRef } from './computers.repository.js';
import { ComputersService } from './computers.service.js';

/** An agent's computer panel (agent-scoped) and the workspace's list of computers. */
@Controller('api')
export class ComputersController {
  constructor(
    private readonly computers: ComputersService,
    private readonly repo: ComputersRepository,
    private readonly access: WorkspaceAccess,
    private readonly auditLog: AuditService,
  ) {}

  @Get('agents/:agentId/computer')
  @ApiRoute({ summary: "The agent's computer and its screen", response: agentComputerViewSchema, tag: 'computers' })
  async get(@CurrentPrincipal() principal: Principal, @IdParam('agentId') agentId: string): Promise<AgentComputerView> {
    return this.computers.agentComputerView(await this.computers.visibleAgent(principal, agentId));
  }

  @Post('agents/:agentId/computer/boot')
  @HttpCode(200)
  @ApiRoute({
    summary: "Boots (or wakes) the agent's computer and starts its screen",
    response: agentComputerViewSchema,
    tag: 'computers',
  })
  async boot(@CurrentPrincipal() principal: Principal, @IdParam('agentId') agentId: string): Promise<AgentComputerView> {
    const agent = await this.computers.visibleAgent(principal, agentId);
    await this.computers.bootForAgent(agent);
    return this.computers.agentComputerView(agent);
  }

  @Post('agents/:agentId/computer/wake')
  @HttpCode(200)
  @ApiRoute({ summary: "Wakes the agent's suspended computer", response: agentComputerViewSchema, tag: 'computers' })
  async wake(@CurrentPrincipal() principal: Principal, @IdParam('agentId') agentId: string): Promise<AgentComputerView> {
    const agent = await this.computers.visibleAgent(principal, agentId);
    const computer = await this.repo.computerForAgent(agent);
    if (!computer || computer.state === 'stopped' || computer.state === 'error') {
      throw conflict('computer_not_running', 'the computer is not running; boot it instead');
    }
    await this.computers.ensureRunning(computer.id);
    return this.computers.agentComputerView(agent);
  }

  @Post('agents/:agentId/computer/suspend')
  @HttpCode(200)
  @ApiRoute({
    summary: "Suspends the agent's computer (memory kept, no CPU)",
    response: agentComputerViewSchema,
    tag: 'computers',
  })
  async suspend(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agentId') agentId: string,
    @Req() req: Request,
  ): Promise<AgentComputerView> {
    const agent = await this.computers.visibleAgent(principal, agentId);
    const computer = await this.existingComputer(agent);
    // The busy check happens under the computer's power lock, inside suspend.
    if (!(await this.computers.suspend(computer.id))) throw conflict('computer_not_running', 'the computer is not running');
    await this.audit(principal, agent, computer.id, 'computer.suspend', req);
    return this.computers.agentComputerView(agent);
  }

  @Post('agents/:agentId/computer/stop')
  @HttpCode(200)
  @ApiRoute({ summary: "Stops the agent's computer (its home is kept)", response: agentComputerViewSchema, tag: 'computers' })
  async stop(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agentId') agentId: string,
    @Req() req: Request,
  ): Promise<AgentComputerView> {
    const agent = await this.computers.visibleAgent(principal, agentId);
    const computer = await this.existingComputer(agent);
    await this.computers.stop(computer.id, { unlessBusy: true });
    await this.audit(principal, agent, computer.id, 'computer.stop', req);
    return this.computers.agentComputerView(agent);
  }

  @Get('workspaces/:workspaceId/computers')
  @ApiRoute({ summary: "The workspace's computers", response: computerListResponseSchema, tag: 'computers' })
  async list(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
  ): Promise<ComputerListResponse> {
    await this.access.require(principal, workspaceId);
    return { items: await this.computers.workspaceComputers(workspaceId) };
  }

  private async existingComputer(agent: AgentRef) {
    const computer = await this.repo.computerForAgent(agent);
    if (!computer) throw conflict('computer_not_running', 'the computer has never been booted');
    return computer;
  }

  private async audit(principal: Principal, agent: AgentRef, computerId: string, action: string, req: Request): Promise<void> {
    await this.auditLog.record({
      workspaceId: agent.workspaceId,
      actorUserId: principal.userId,
      action,
      targetType: 'computer',
      targetId: computerId,
      details: { agentId: agent.id },
      ip: clientIpOf(req) ?? null,
    });
  }
}
