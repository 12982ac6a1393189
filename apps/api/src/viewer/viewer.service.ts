import { Inject, Injectable } from '@nestjs/common';
import {
  workerRoutes,
  screenVncPath,
  signViewGrant,
  type AgentComputerView,
  type ViewerControlCheckRequest,
  type ViewerControlCheckResponse,
  type ViewerTicketRedeemResponse,
  type ViewerTicketResponse,
} from '@lazyboy/contracts';
import type { Principal } from '../auth/principal.js';
import { ApiError, conflict, forbidden } from '../common/api-error.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { computerView, screenView } from '../computers/computer-view.js';
import { ComputersRepository } from '../computers/computers.repository.js';
import { ComputersService } from '../computers/computers.service.js';
import { holdsControl, ScreenControlService } from '../computers/screen-control.service.js';
import { WorkerClient } from '../computers/worker-client.js';
import { RedisService } from '../redis/redis.service.js';
import { InvalidTicketError, ViewerTickets, type ViewerMode } from './viewer-tickets.js';

/**
 * Watching an agent's screen: the viewer heartbeat (keeps the computer awake, renews a takeover) and the
 * tickets that let the web server proxy one screen's VNC websocket for one person, once.
 */
@Injectable()
export class ViewerService {
  private readonly tickets: ViewerTickets;

  constructor(
    private readonly computers: ComputersService,
    private readonly control: ScreenControlService,
    private readonly repo: ComputersRepository,
    private readonly redis: RedisService,
    @Inject(API_CONFIG) config: ApiConfig,
  ) {
    this.tickets = new ViewerTickets(config.LAZYBOY_VAULT_KEY);
  }

  /** Someone is watching: the idle loop leaves the computer running; their takeover, if any, is extended. */
  async heartbeat(principal: Principal, agentId: string): Promise<AgentComputerView> {
    const agent = await this.computers.visibleAgent(principal, agentId);
    const computer = await this.repo.computerForAgent(agent);
    if (!computer) return { computer: null, screen: null };
    const viewedAt = new Date();
    await this.repo.touchViewed(computer.id, viewedAt);
    const screen = computer.screens.find((s) => s.agentId === agent.id);
    const renewed = screen ? await this.control.renewControl(screen, principal.userId) : null;
    // Built from the row already read (a heartbeat every 2 s per viewer): only what this call changed is patched in.
    const view = computerView({ ...computer, lastViewedAt: viewedAt });
    if (renewed) view.screens = view.screens.map((s) => (s.id === renewed.screen.id ? renewed.screen : s));
    return { computer: view, screen: renewed?.screen ?? (screen ? screenView(screen) : null) };
  }

  async issue(principal: Principal, agentId: string, mode: ViewerMode): Promise<ViewerTicketResponse> {
    const agent = await this.computers.visibleAgent(principal, agentId);
    const computer = await this.repo.computerForAgent(agent);
    if (!computer || (computer.state !== 'running' && computer.state !== 'suspended')) {
      throw conflict('computer_not_running', 'the computer is not running; boot it first');
    }
    await this.repo.touchViewed(computer.id);
    // Watching wakes a sleeping computer and starts the agent's screen if it has none yet.
    const { running, screen } = await this.computers.bootForAgent(agent);
    if (mode === 'control' && !holdsControl(screen, principal.userId)) {
      throw forbidden('take control of the screen first');
    }
    const { ticket, claims } = this.tickets.issue({
      screenId: screen.id,
      computerId: running.computer.id,
      userId: principal.userId,
      mode,
    });
    return { ticket, mode, expiresAt: new Date(claims.exp).toISOString(), path: `/view/${ticket}` };
  }

  /**
   * Where the web server proxies a ticket's websocket. 401 for a forged, altered, expired or used ticket;
   * a control ticket whose holder has since handed control back is downgraded to view-only.
   */
  async redeem(ticket: string): Promise<ViewerTicketRedeemResponse> {
    let claims;
    try {
      claims = this.tickets.verify(ticket);
    } catch (error) {
      if (error instanceof InvalidTicketError) throw new ApiError('UNAUTHENTICATED', `invalid viewer ticket (${error.message})`);
      throw error;
    }
    const first = await this.redis.client.set(`lazyboy:viewer-ticket:${claims.jti}`, '1', 'PX', this.tickets.ttlMs * 2, 'NX');
    if (first !== 'OK') throw new ApiError('UNAUTHENTICATED', 'invalid viewer ticket (already used)');
    const computer = await this.repo.computer(claims.computerId);
    const screen = computer?.screens.find((s) => s.id === claims.screenId);
    const binding = computer ? this.computers.bindingOf(computer) : null;
    if (!computer || !screen || !binding || (computer.state !== 'running' && computer.state !== 'suspended')) {
      throw conflict('screen_gone', 'the screen is not running any more');
    }
    const screens = await new WorkerClient(binding.endpoint).call(workerRoutes.listScreens, {}, { timeoutMs: 5_000 });
    if (!screens.screens.find((s) => s.slot === screen.slot)?.endpoints) {
      throw conflict('screen_gone', 'the screen is not running any more');
    }
    const stillControls = holdsControl(screen, claims.userId);
    const target = new URL(screenVncPath(screen.slot), binding.endpoint.baseUrl);
    target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
    return {
      target: target.toString(),
      grant: await signViewGrant(binding.endpoint.token, computer.id, screen.slot),
      viewOnly: claims.mode !== 'control' || !stillControls,
      screenId: screen.id,
      userId: claims.userId,
      expiresAt: new Date(claims.exp).toISOString(),
    };
  }

  /** Which of these people still hold control of these screens: a lapsed control lease counts as handed back. */
  async controlCheck(holds: ViewerControlCheckRequest['holds']): Promise<ViewerControlCheckResponse> {
    const screens = new Map((await this.repo.screensByIds([...new Set(holds.map((h) => h.screenId))])).map((s) => [s.id, s]));
    const now = new Date();
    return {
      holds: holds.map(({ screenId, userId }) => {
        const screen = screens.get(screenId);
        return { screenId, userId, held: screen !== undefined && holdsControl(screen, userId, now) };
      }),
    };
  }
}
