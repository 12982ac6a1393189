import { Injectable } from '@nestjs/common';
import type { ControlHolder } from '@lazyboy/contracts';
import { ComputersRepository } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { RunScreens, type AcquireScreenInput, type AcquiredScreen } from './run-screens.js';
import { RunScreenWorker } from './run-screen-worker.js';

/** The run executor's access to screens: the execution lease in Postgres, fenced on the worker. */
@Injectable()
export class ComputerRunScreens extends RunScreens {
  constructor(
    private readonly computers: ComputersService,
    private readonly repo: ComputersRepository,
  ) {
    super();
  }

  async acquire({ workspaceId, agentId, runId, onStep, signal }: AcquireScreenInput): Promise<AcquiredScreen> {
    const agent = await this.computers.agent(agentId);
    if (agent.workspaceId !== workspaceId) throw new Error(`agent ${agentId} is not in workspace ${workspaceId}`);
    const { running, screen } = await this.computers.bootForAgent(agent, {
      onStep,
      signal,
      lease: (allocated) => this.repo.takeExecution(allocated.id, runId),
    });
    // The run keeps its execution lease across a new worker: the screen is ensured again with the fence it
    // holds (if another run took the lease meanwhile, the worker refuses this one with STALE_FENCE).
    const rebind = async (rebindSignal?: AbortSignal) =>
      (
        await this.computers.bootForAgent(agent, {
          onStep,
          ...(rebindSignal ? { signal: rebindSignal } : {}),
          lease: async (held) => held,
        })
      ).running.binding;
    return {
      computerId: running.computer.id,
      screenId: screen.id,
      slot: screen.slot,
      fence: Number(screen.executionFence),
      worker: RunScreenWorker.create(
        running.binding,
        {
          unreachable: (binding, error) => this.computers.lostOrUnreachable(binding, error),
          gone: (binding) => this.computers.goneSignal(binding),
        },
        rebind,
      ),
    };
  }

  async release(runId: string): Promise<void> {
    const computerIds = await this.repo.releaseExecution(runId);
    for (const computerId of new Set(computerIds)) {
      await this.repo.touchActive(computerId);
      await this.computers.publishById(computerId);
    }
  }

  async controlHolder(agentId: string): Promise<ControlHolder> {
    const agent = await this.repo.agent(agentId);
    if (!agent) return 'agent';
    const computer = await this.repo.computerForAgent(agent);
    return computer?.screens.find((s) => s.agentId === agentId)?.controlHolder ?? 'agent';
  }
}
