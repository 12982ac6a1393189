import { Controller, HttpCode, Post } from '@nestjs/common';
import {
  agentComputerViewSchema,
  viewerControlCheckRequestSchema,
  viewerControlCheckResponseSchema,
  viewerTicketRedeemRequestSchema,
  viewerTicketRedeemResponseSchema,
  viewerTicketRequestSchema,
  viewerTicketResponseSchema,
  type AgentComputerView,
  type ViewerControlCheckRequest,
  type ViewerControlCheckResponse,
  type ViewerTicketRedeemRequest,
  type ViewerTicketRedeemResponse,
  type ViewerTicketRequest,
  type ViewerTicketResponse,
} from '@lazyboy/contracts';
import { CurrentPrincipal, Internal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody } from '../common/zod-params.js';
import { ViewerService } from './viewer.service.js';

@Controller('api')
export class ViewerController {
  constructor(private readonly viewer: ViewerService) {}

  @Post('agents/:agentId/computer/heartbeat')
  @HttpCode(200)
  @ApiRoute({
    summary: "A viewer is watching the agent's screen (every 2 s): keeps the computer awake, renews the viewer's takeover",
    response: agentComputerViewSchema,
    tag: 'viewer',
  })
  async heartbeat(@CurrentPrincipal() principal: Principal, @IdParam('agentId') agentId: string): Promise<AgentComputerView> {
    return this.viewer.heartbeat(principal, agentId);
  }

  @Post('agents/:agentId/computer/viewer-ticket')
  @HttpCode(201)
  @ApiRoute({
    summary: "A 60-second ticket to watch (or, holding control, drive) the agent's screen",
    response: viewerTicketResponseSchema,
    status: 201,
    tag: 'viewer',
  })
  async ticket(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agentId') agentId: string,
    @ZodBody(viewerTicketRequestSchema) body: ViewerTicketRequest,
  ): Promise<ViewerTicketResponse> {
    return this.viewer.issue(principal, agentId, body.mode);
  }

  /** Called by the web server (its shared secret): the ticket names the person and screen, redeemed once. */
  @Internal()
  @Post('viewer/redeem')
  @HttpCode(200)
  @ApiRoute({
    summary: "Redeems a viewer ticket: the screen's VNC websocket to proxy",
    response: viewerTicketRedeemResponseSchema,
    tag: 'viewer',
  })
  async redeem(@ZodBody(viewerTicketRedeemRequestSchema) body: ViewerTicketRedeemRequest): Promise<ViewerTicketRedeemResponse> {
    return this.viewer.redeem(body.ticket);
  }

  /** Called by the web server about the view connections it lets drive a screen, about once a second. */
  @Internal()
  @Post('viewer/control-check')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Whether each person still holds control of each screen (the web server stops their input otherwise)',
    response: viewerControlCheckResponseSchema,
    tag: 'viewer',
  })
  async controlCheck(
    @ZodBody(viewerControlCheckRequestSchema) body: ViewerControlCheckRequest,
  ): Promise<ViewerControlCheckResponse> {
    return this.viewer.controlCheck(body.holds);
  }
}
