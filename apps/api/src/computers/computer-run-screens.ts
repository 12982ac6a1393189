import { Injectable } from '@nestjs/common';
import type { ControlHolder } from '@lazyboy/contracts';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { RunScreens, type AcquireScreenInput, type AcquiredScreen } from './run-screens.js';
import { WorkerClient } from './worker-client.js';

/** The run executor's access to screens: the execution lease in Postgres, fenced on the worker. */
@Injectable()
export class ComputerRunScreens extends RunScreens {
  constructor(
    private readonly computers: ComputersService,
    private readonly repo: ComputersRepository,
  ) {
    super();
  }

  async acquire({ workspaceId, botId, runId, onStep, signal }: AcquireScreenInput): Promise<AcquiredScreen> {
    const bot = await this.computers.bot(botId);
    if (bot.workspaceId !== workspaceId) throw new Error(`bot ${botId} is not in workspace ${workspaceId}`);
    const { running, screen } = await this.computers.bootForBot(bot, {
      onStep,
      signal,
      lease: (allocated) => this.repo.takeExecution(allocated.id, runId),
    });
    return {
      computerId: running.computer.id,
      screenId: screen.id,
      slot: screen.slot,
      fence: Number(screen.executionFence),
      worker: new WorkerClient(running.binding.endpoint),
    };
  }

  async release(runId: string): Promise<void> {
    const computerIds = await this.repo.releaseExecution(runId);
    for (const computerId of new Set(computerIds)) {
      await this.repo.touchActive(computerId);
      await this.computers.publishById(computerId);
    }
  }

  async controlHolder(botId: string): Promise<ControlHolder> {
    const bot = await this.repo.bot(botId);
    if (!bot) return 'agent';
    const computer = await this.repo.computerForBot(bot);
    return computer?.screens.find((s) => s.botId === botId)?.controlHolder ?? 'agent';
  }
}
