import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import {
  personTypeRequestSchema,
  personTypeResponseSchema,
  takeoverResponseSchema,
  type PersonTypeRequest,
  type PersonTypeResponse,
  type TakeoverResponse,
} from '@lazyboy/contracts';
import type { Request } from 'express';
import { clientIpOf } from '../auth/client-ip.js';
import { CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody } from '../common/zod-params.js';
import { TakeoverService } from './takeover.service.js';

@Controller('api/agents/:agentId/computer')
export class TakeoverController {
  constructor(private readonly takeover: TakeoverService) {}

  @Post('takeover')
  @ApiRoute({
    summary: "Take control of the agent's screen (15 min, renewed by the viewer heartbeat); its run parks at the next action",
    response: takeoverResponseSchema,
    tag: 'computers',
  })
  take(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agentId') agentId: string,
    @Req() req: Request,
  ): Promise<TakeoverResponse> {
    return this.takeover.take(principal, agentId, clientIpOf(req) ?? null);
  }

  @Post('release')
  @ApiRoute({
    summary: 'Hand the screen back to the agent; a run parked in waiting_takeover continues from the current screen',
    response: takeoverResponseSchema,
    tag: 'computers',
  })
  release(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agentId') agentId: string,
    @Req() req: Request,
  ): Promise<TakeoverResponse> {
    return this.takeover.release(principal, agentId, clientIpOf(req) ?? null);
  }

  @Post('type')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Type text into the screen you hold (a paste, Chinese included): into the focused browser tab, or as keys',
    response: personTypeResponseSchema,
    tag: 'computers',
  })
  type(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agentId') agentId: string,
    @ZodBody(personTypeRequestSchema) body: PersonTypeRequest,
  ): Promise<PersonTypeResponse> {
    return this.takeover.type(principal, agentId, body.text);
  }
}
