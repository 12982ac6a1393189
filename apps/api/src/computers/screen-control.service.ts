import { Inject, Injectable, Logger } from '@nestjs/common';
import { typingTimeMs, workerRoutes, type ScreenView, type TypedVia } from '@lazyboy/contracts';
import { AuditService } from '../audit/audit.service.js';
import { conflict, forbidden } from '../common/api-error.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import type { ComputerScreen } from '../persistence/generated/client.js';
import { screenView } from './computer-view.js';
import { ComputersRepository, type AgentRef } from './computers.repository.js';
import { ComputersService } from './computers.service.js';
import { WorkerCallError, WorkerClient } from './worker-client.js';

export interface ControlChange {
  computerId: string;
  screen: ScreenView;
  /** The control fence now in force (the worker refuses older ones). */
  fence: number;
}

/** Beyond the worker's own typing time: the call's way there and back. */
const WORKER_CALL_MARGIN_MS = 10_000;

export interface AuditContext {
  ip?: string | null;
}

/**
 * Whether `userId` holds control of the screen at `now`: taken by them, and its lease not lapsed (a lapsed
 * one counts as handed back, before the idle loop releases it, as taking control already treats it).
 */
export function holdsControl(
  screen: Pick<ComputerScreen, 'controlHolder' | 'controlUserId' | 'controlExpiresAt'>,
  userId: string,
  now = new Date(),
): boolean {
  return (
    screen.controlHolder === 'user' &&
    screen.controlUserId === userId &&
    (screen.controlExpiresAt === null || screen.controlExpiresAt > now)
  );
}

/**
 * The control lease of an agent's screen (takeover): a person takes it (control fence + 1, the worker then
 * refuses the agent's actions with 423 CONTROL_HELD_BY_USER), keeps it with the viewer heartbeat, and hands
 * it back (fence + 1 again). A lease not renewed within LAZYBOY_CONTROL_LEASE_MS is handed back by the
 * idle loop. Callers check that the person may see the agent; runs parking and resuming is the run side's job.
 */
@Injectable()
export class ScreenControlService {
  private readonly logger = new Logger(ScreenControlService.name);
  private readonly releaseListeners = new Set<(agentId: string) => Promise<unknown>>();

  constructor(
    private readonly computers: ComputersService,
    private readonly repo: ComputersRepository,
    private readonly auditLog: AuditService,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /** `userId` takes the agent's screen: the computer is booted or woken and the screen started if needed. */
  async takeControl(agentId: string, userId: string, audit: AuditContext = {}): Promise<ControlChange> {
    const agent = await this.computers.agent(agentId);
    const { running, screen } = await this.computers.bootForAgent(agent);
    const taken = await this.repo.takeControl(screen.id, userId, this.expiry(), new Date());
    if (!taken) throw conflict('control_held', 'another person has control of this screen; wait until they hand it back');
    await this.tellWorker(new WorkerClient(running.binding.endpoint), taken);
    await this.auditLog.record({
      workspaceId: agent.workspaceId,
      actorUserId: userId,
      action: 'takeover.start',
      targetType: 'agent',
      targetId: agent.id,
      details: { computerId: running.computer.id, screenId: taken.id, slot: taken.slot, fence: Number(taken.controlFence) },
      ip: audit.ip ?? null,
    });
    await this.computers.publishById(running.computer.id);
    return change(running.computer.id, taken);
  }

  /** Extends `userId`'s control of the screen (as the caller just read it); null when they do not hold it (any more). */
  async renewControl(screen: ComputerScreen, userId: string): Promise<ControlChange | null> {
    if (screen.controlHolder !== 'user' || screen.controlUserId !== userId) return null;
    const renewed = await this.repo.renewControl(screen.id, userId, this.expiry());
    return renewed ? change(renewed.computerId, renewed) : null;
  }

  /**
   * Hands the agent's screen back to the agent. Only the person holding it may (`userId`); null `userId`
   * releases whoever holds it (an admin, or the run being cancelled). Null when nobody held it.
   */
  async releaseControl(
    agentId: string,
    userId: string | null,
    audit: AuditContext & { reason?: string } = {},
  ): Promise<ControlChange | null> {
    const agent = await this.computers.agent(agentId);
    const screen = await this.screenOf(agent);
    if (!screen || screen.controlHolder !== 'user') return null;
    if (userId && screen.controlUserId !== userId) {
      throw conflict('control_held', 'another person has control of this screen', { controlUserId: screen.controlUserId });
    }
    const released = await this.repo.releaseControl(screen.id, userId);
    if (!released) return null;
    await this.afterRelease(agent.workspaceId, released, userId, audit.reason ?? 'released', audit.ip ?? null);
    return change(released.computerId, released);
  }

  /**
   * Types text for the person holding the agent's screen: their paste, their phone keyboard's Chinese. Sent
   * to the worker with their control fence, so it lands only while that hold lasts.
   */
  async typeForPerson(agent: AgentRef, userId: string, text: string): Promise<TypedVia> {
    const computer = await this.repo.computerForAgent(agent);
    const screen = computer?.screens.find((s) => s.agentId === agent.id);
    if (!computer || !screen || !holdsControl(screen, userId)) throw forbidden('take control of the screen first');
    const binding = this.computers.bindingOf(computer);
    if (!binding || computer.state !== 'running')
      throw conflict('computer_not_running', 'the computer is not running; wake it first');
    const answer = await new WorkerClient(binding.endpoint).call(
      workerRoutes.personType,
      { slot: screen.slot, fence: Number(screen.controlFence), text },
      { timeoutMs: WORKER_CALL_MARGIN_MS + typingTimeMs(text) },
    );
    return answer.via;
  }

  /**
   * Called after every hand-back (by the person, an admin, or the expiry of the lease): the run side resumes
   * the agent's run parked in waiting_takeover. Registered by the runs module, which depends on this one.
   */
  onRelease(listener: (agentId: string) => Promise<unknown>): void {
    this.releaseListeners.add(listener);
  }

  /** Hands back every control lease that was not renewed in time (the idle loop). */
  async releaseExpired(now = new Date()): Promise<number> {
    let released = 0;
    for (const screen of await this.repo.expiredControl(now)) {
      const done = await this.repo.releaseControl(screen.id, null, now);
      if (!done) continue;
      released += 1;
      await this.afterRelease(screen.computer.workspaceId, done, null, 'expired', null, screen.controlUserId);
    }
    return released;
  }

  private async afterRelease(
    workspaceId: string,
    screen: ComputerScreen,
    actorUserId: string | null,
    reason: string,
    ip: string | null,
    previousUserId: string | null = actorUserId,
  ): Promise<void> {
    const computer = await this.repo.computer(screen.computerId);
    const binding = computer ? this.computers.bindingOf(computer) : null;
    // A stopped computer's next worker learns the holder from Postgres when the screen is ensured.
    if (binding && computer && (computer.state === 'running' || computer.state === 'suspended')) {
      await this.tellWorker(new WorkerClient(binding.endpoint), screen);
    }
    await this.auditLog.record({
      workspaceId,
      actorUserId,
      action: 'takeover.end',
      targetType: 'agent',
      targetId: screen.agentId ?? screen.id,
      details: {
        computerId: screen.computerId,
        screenId: screen.id,
        reason,
        userId: previousUserId,
        fence: Number(screen.controlFence),
      },
      ip,
    });
    await this.computers.publishById(screen.computerId);
    if (screen.agentId) for (const listener of this.releaseListeners) await listener(screen.agentId);
  }

  /** Best effort: an unreachable worker is brought in line when the screen is next ensured. */
  private async tellWorker(worker: WorkerClient, screen: ComputerScreen): Promise<void> {
    try {
      await worker.call(workerRoutes.setControl, {
        slot: screen.slot,
        holder: screen.controlHolder,
        fence: Number(screen.controlFence),
      });
    } catch (error) {
      if (error instanceof WorkerCallError && error.code === 'STALE_FENCE') return; // a newer change got there first
      if (error instanceof WorkerCallError && error.code === 'UNREACHABLE') {
        this.logger.warn(`screen ${screen.id}: the worker did not hear the control change (${error.message})`);
        return;
      }
      throw error;
    }
  }

  private async screenOf(agent: AgentRef): Promise<ComputerScreen | null> {
    const computer = await this.repo.computerForAgent(agent);
    return computer?.screens.find((s) => s.agentId === agent.id) ?? null;
  }

  private expiry(): Date {
    return new Date(Date.now() + this.config.LAZYBOY_CONTROL_LEASE_MS);
  }
}

function change(computerId: string, screen: ComputerScreen): ControlChange {
  return { computerId, screen: screenView(screen), fence: Number(screen.controlFence) };
}
