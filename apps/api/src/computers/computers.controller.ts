import { Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import {
  botComputerViewSchema,
  computerListResponseSchema,
  type BotComputerView,
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
import { ComputersRepository, type BotRef } from './computers.repository.js';
import { ComputersService } from './computers.service.js';

/** An agent's computer panel (bot-scoped) and the workspace's list of computers. */
@Controller('api')
export class ComputersController {
  constructor(
    private readonly computers: ComputersService,
    private readonly repo: ComputersRepository,
    private readonly access: WorkspaceAccess,
    private readonly auditLog: AuditService,
  ) {}

  @Get('bots/:botId/computer')
  @ApiRoute({ summary: "The agent's computer and its screen", response: botComputerViewSchema, tag: 'computers' })
  async get(@CurrentPrincipal() principal: Principal, @IdParam('botId') botId: string): Promise<BotComputerView> {
    return this.computers.botComputerView(await this.computers.visibleBot(principal, botId));
  }

  @Post('bots/:botId/computer/boot')
  @HttpCode(200)
  @ApiRoute({
    summary: "Boots (or wakes) the agent's computer and starts its screen",
    response: botComputerViewSchema,
    tag: 'computers',
  })
  async boot(@CurrentPrincipal() principal: Principal, @IdParam('botId') botId: string): Promise<BotComputerView> {
    const bot = await this.computers.visibleBot(principal, botId);
    await this.computers.bootForBot(bot);
    return this.computers.botComputerView(bot);
  }

  @Post('bots/:botId/computer/wake')
  @HttpCode(200)
  @ApiRoute({ summary: "Wakes the agent's suspended computer", response: botComputerViewSchema, tag: 'computers' })
  async wake(@CurrentPrincipal() principal: Principal, @IdParam('botId') botId: string): Promise<BotComputerView> {
    const bot = await this.computers.visibleBot(principal, botId);
    const computer = await this.repo.computerForBot(bot);
    if (!computer || computer.state === 'stopped' || computer.state === 'error') {
      throw conflict('computer_not_running', 'the computer is not running; boot it instead');
    }
    await this.computers.ensureRunning(computer.id);
    return this.computers.botComputerView(bot);
  }

  @Post('bots/:botId/computer/suspend')
  @HttpCode(200)
  @ApiRoute({ summary: "Suspends the agent's computer (memory kept, no CPU)", response: botComputerViewSchema, tag: 'computers' })
  async suspend(
    @CurrentPrincipal() principal: Principal,
    @IdParam('botId') botId: string,
    @Req() req: Request,
  ): Promise<BotComputerView> {
    const bot = await this.computers.visibleBot(principal, botId);
    const computer = await this.existingComputer(bot);
    // The busy check happens under the computer's power lock, inside suspend.
    if (!(await this.computers.suspend(computer.id))) throw conflict('computer_not_running', 'the computer is not running');
    await this.audit(principal, bot, computer.id, 'computer.suspend', req);
    return this.computers.botComputerView(bot);
  }

  @Post('bots/:botId/computer/stop')
  @HttpCode(200)
  @ApiRoute({ summary: "Stops the agent's computer (its home is kept)", response: botComputerViewSchema, tag: 'computers' })
  async stop(
    @CurrentPrincipal() principal: Principal,
    @IdParam('botId') botId: string,
    @Req() req: Request,
  ): Promise<BotComputerView> {
    const bot = await this.computers.visibleBot(principal, botId);
    const computer = await this.existingComputer(bot);
    await this.computers.stop(computer.id, { unlessBusy: true });
    await this.audit(principal, bot, computer.id, 'computer.stop', req);
    return this.computers.botComputerView(bot);
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

  private async existingComputer(bot: BotRef) {
    const computer = await this.repo.computerForBot(bot);
    if (!computer) throw conflict('computer_not_running', 'the computer has never been booted');
    return computer;
  }

  private async audit(principal: Principal, bot: BotRef, computerId: string, action: string, req: Request): Promise<void> {
    await this.auditLog.record({
      workspaceId: bot.workspaceId,
      actorUserId: principal.userId,
      action,
      targetType: 'computer',
      targetId: computerId,
      details: { botId: bot.id },
      ip: clientIpOf(req) ?? null,
    });
  }
}
