import { Injectable } from '@nestjs/common';
import type { PersonTypeResponse, TakeoverResponse } from '@lazyboy/contracts';
import type { Principal } from '../auth/principal.js';
import { ComputersService } from '../computers/computers.service.js';
import { ScreenControlService } from '../computers/screen-control.service.js';
import { RunsRepository } from '../runs/runs.repository.js';
import { toRunView } from '../runs/run-views.js';
import { RunsService } from '../runs/runs.service.js';

/**
 * Takeover joins the two sides: the screen's control lease (computers) and the agent's run (runs). While a
 * person holds control the worker refuses the agent's actions, so the run parks in waiting_takeover at its
 * next desktop action; the release resumes it from the current screen.
 */
@Injectable()
export class TakeoverService {
  constructor(
    private readonly computers: ComputersService,
    private readonly control: ScreenControlService,
    private readonly runsRepository: RunsRepository,
    private readonly runs: RunsService,
  ) {}

  async take(principal: Principal, agentId: string, ip: string | null): Promise<TakeoverResponse> {
    const agent = await this.computers.visibleAgent(principal, agentId);
    const change = await this.control.takeControl(agent.id, principal.userId, { ip });
    const run = await this.runsRepository.activeRunOfAgent(agent.id);
    return { screen: change.screen, run: run ? toRunView(run) : null };
  }

  async release(principal: Principal, agentId: string, ip: string | null): Promise<TakeoverResponse> {
    const agent = await this.computers.visibleAgent(principal, agentId);
    // The release resumes a run parked in waiting_takeover (RunsService listens to every hand-back): the
    // answer shows that run as it is now (queued again, or already taken by an executor).
    const parked = await this.runsRepository.activeRunOfAgent(agent.id, ['waiting_takeover']);
    const change = await this.control.releaseControl(agent.id, principal.userId, { ip });
    const screen = change?.screen ?? (await this.computers.agentComputerView(agent)).screen;
    // A run that asked for a person (request_takeover) while nobody took control: "hand back" without a
    // takeover still means "go on". While someone else holds control, their release resumes it instead.
    if (parked && !change && screen?.controlHolder !== 'user') await this.runs.resumeAfterRelease(agent.id);
    const run = parked
      ? await this.runsRepository.findVisible(principal, parked.id)
      : await this.runsRepository.activeRunOfAgent(agent.id);
    return { screen, run: run ? toRunView(run) : null };
  }

  /** The person holding the agent's screen types into it; refused (403) to anyone else. */
  async type(principal: Principal, agentId: string, text: string): Promise<PersonTypeResponse> {
    const agent = await this.computers.visibleAgent(principal, agentId);
    return { via: await this.control.typeForPerson(agent, principal.userId, text) };
  }
}
