import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  workerRoutes,
  type AgentComputerView,
  type BusyStep,
  type ComputerView,
  type RealtimeRoom,
  type ScreenInfo,
} from '@lazyboy/contracts';
import type { Principal } from '../auth/principal.js';
import { ApiError, conflict, notFound } from '../common/api-error.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { COMPUTER_TOKEN_PURPOSE } from '../crypto/purposes.js';
import { SecretBox, vaultKeyRingOf } from '../crypto/secret-box.js';
import type { ComputerScreen } from '../persistence/generated/client.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { computerView, screenView } from './computer-view.js';
import { ComputersRepository, type AgentRef, type ComputerWithScreens } from './computers.repository.js';
import { PoolDriver, type LostWorker, type WorkerBinding } from './pool-driver.js';
import { GoneBindings } from './gone-bindings.js';
import { PowerLock } from './power-lock.js';
import { neverDelivered, WorkerCallError, WorkerClient } from './worker-client.js';

const BOOT_POLL_MS = 250;

/** What a tool call that met a vanished worker reads (the model, and the person through the run's log). */
export const COMPUTER_LOST_MESSAGE_IN_FLIGHT =
  'the computer went away while this call ran (its worker stopped; whether the call took effect is unknown). ' +
  'It is started again on the next call: open windows and running commands are gone, files in the home folder are kept';

/** The same, for a call no worker received (nothing listened any more): nothing was done. */
export const COMPUTER_LOST_MESSAGE_UNSENT =
  'the computer went away before this call reached it (its worker stopped; nothing was done). ' +
  'It is started again on the next call: open windows and running commands are gone, files in the home folder are kept';

export interface RunningComputer {
  computer: ComputerWithScreens;
  binding: WorkerBinding;
}

export interface PowerOptions {
  onStep?: (step: BusyStep) => void;
  signal?: AbortSignal;
}

export interface BootForAgentOptions extends PowerOptions {
  /** Takes the run's execution lease on the screen before the worker hears of it (see ensureAgentScreen). */
  lease?: (screen: ComputerScreen) => Promise<ComputerScreen>;
}

/** How often a boot that is still going marks its computer in use. */
const BOOT_ACTIVITY_MS = 1_000;

/**
 * The agents' computers: which one an agent works on (its private one or the workspace's Team computer,
 * one screen per agent), and their life cycle booting → running ⇄ suspended → stopped (or error), kept in
 * Postgres and carried out by the pool driver. Safe under concurrency: one caller in any replica boots
 * (a compare-and-set on the state), suspend and wake serialise on a per-computer lock.
 *
 * The binding (ARCHITECTURE.md, "Leases"): the replica that booted a computer (or took it over) is
 * responsible for its worker and renews `bindExpiresAt`; every replica may use the worker, each call
 * carrying the `bindFence` it read. A binding whose lease lapsed is taken over by the next replica that
 * looks (fence + 1, told to the worker, which refuses lower fences from then on). A worker that went away
 * ends only its own binding: the computer is stopped for that fence and boots with a higher one next.
 */
@Injectable()
export class ComputersService {
  private readonly logger = new Logger(ComputersService.name);
  private readonly tokens: SecretBox;
  private readonly ensuring = new Map<string, SharedBringUp>();
  /** The bindings (and boots) this process is responsible for: computer id → bind fence. */
  private readonly held = new Map<string, Held>();
  /** The signals that end calls in flight on a worker the driver reported gone. */
  private readonly gone = new GoneBindings();
  private readonly stopListening: () => void;
  closing = false;

  constructor(
    private readonly repo: ComputersRepository,
    private readonly driver: PoolDriver,
    private readonly powerLock: PowerLock,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Optional() private readonly realtime?: RealtimePublisher,
  ) {
    this.tokens = new SecretBox(vaultKeyRingOf(config), COMPUTER_TOKEN_PURPOSE);
    this.stopListening = driver.onLost((lost) => void this.workerLost(lost));
  }

  /** Stops hearing of lost workers (the module is ending, or a test's replica is done). */
  detach(): void {
    this.stopListening();
  }

  get screenLimit(): number {
    return this.config.TEAM_SCREEN_LIMIT;
  }

  // ------------------------------------------------------------------------------------------- agents

  /** The agent the principal names, or 404 (a foreign agent looks like a missing one). */
  async visibleAgent(principal: Principal, agentId: string): Promise<AgentRef> {
    const agent = await this.repo.visibleAgent(principal, agentId);
    if (!agent) throw notFound('agent');
    return agent;
  }

  async agent(agentId: string): Promise<AgentRef> {
    const agent = await this.repo.agent(agentId);
    if (!agent) throw notFound('agent');
    return agent;
  }

  async agentComputerView(agent: AgentRef): Promise<AgentComputerView> {
    const computer = await this.repo.computerForAgent(agent);
    if (!computer) return { computer: null, screen: null };
    const screen = computer.screens.find((s) => s.agentId === agent.id) ?? null;
    return { computer: computerView(computer), screen: screen ? screenView(screen) : null };
  }

  async workspaceComputers(workspaceId: string): Promise<ComputerView[]> {
    return (await this.repo.workspaceComputers(workspaceId)).map(computerView);
  }

  /** The agent's computer, created (stopped) on first use. */
  async computerOf(agent: AgentRef): Promise<ComputerWithScreens> {
    return this.repo.ensureComputerForAgent(agent);
  }

  /** Boots or wakes the agent's computer and starts the agent's screen on it. */
  async bootForAgent(
    agent: AgentRef,
    { lease, ...options }: BootForAgentOptions = {},
  ): Promise<{ running: RunningComputer; screen: ComputerScreen }> {
    const computer = await this.computerOf(agent);
    // Marks the computer in use before looking at its state, and keeps it so while the agent's screen
    // boots (seconds on a busy host), so the idle loop cannot suspend it under the person waiting for it.
    await this.repo.touchActive(computer.id);
    const keepActive = setInterval(() => void this.repo.touchActive(computer.id).catch(() => undefined), BOOT_ACTIVITY_MS);
    try {
      return await this.withRetryOnLostWorker(computer.id, options, async (running) => ({
        running,
        screen: await this.ensureAgentScreen(agent, running, lease),
      }));
    } finally {
      clearInterval(keepActive);
    }
  }

  // ---------------------------------------------------------------------------------- life cycle

  /**
   * The computer running, whatever it was: a stopped or failed one boots (one caller boots, others wait
   * for it), a suspended one wakes. Reports booting / waking through onStep.
   */
  async ensureRunning(computerId: string, { onStep, signal }: PowerOptions = {}): Promise<RunningComputer> {
    signal?.throwIfAborted();
    let shared = this.ensuring.get(computerId);
    if (!shared) {
      const attempt: SharedBringUp = { steps: new Set(), lastStep: undefined, promise: Promise.resolve(undefined as never) };
      const report = (step: BusyStep) => {
        attempt.lastStep = step;
        for (const listener of attempt.steps) listener(step);
      };
      // Not cancelled with the first caller: a boot half done is finished for whoever asks next.
      attempt.promise = this.bringUp(computerId, report).finally(() => this.ensuring.delete(computerId));
      this.ensuring.set(computerId, attempt);
      shared = attempt;
    } else if (shared.lastStep && onStep) {
      onStep(shared.lastStep);
    }
    if (onStep) shared.steps.add(onStep);
    try {
      return await (signal ? raceAbort(shared.promise, signal) : shared.promise);
    } finally {
      if (onStep) shared.steps.delete(onStep);
    }
  }

  private async bringUp(computerId: string, onStep: (step: BusyStep) => void): Promise<RunningComputer> {
    let reportedBoot = false;
    for (;;) {
      if (this.closing) throw new ApiError('NOT_READY', 'the API is shutting down');
      const computer = await this.repo.computer(computerId);
      if (!computer) throw notFound('computer');
      const binding = this.bindingOf(computer);
      if ((computer.state === 'running' || computer.state === 'suspended') && binding && this.leaseLapsed(computer)) {
        // Its binder stopped renewing (the API process died): this use takes the worker over first.
        await this.takeOver(computer);
        continue;
      }
      switch (computer.state) {
        case 'running':
          if (binding) return { computer, binding };
          await this.repo.markStopped(computerId, 'the computer had no worker binding');
          continue;
        case 'suspended':
          if (!binding) {
            await this.repo.markStopped(computerId, 'the computer had no worker binding');
            continue;
          }
          onStep({ kind: 'waking' });
          await this.wake(computerId);
          continue;
        case 'stopped':
        case 'error':
        case 'booting': {
          if (!reportedBoot) onStep({ kind: 'booting' });
          reportedBoot = true;
          const fence = await this.repo.claimBoot(computerId, new Date(), this.leaseExpiry());
          if (fence !== null) {
            this.held.set(computerId, { fence });
            return this.boot(computerId, fence);
          }
          // Another caller (maybe in another replica) is booting it: wait for the outcome.
          await new Promise((resolve) => setTimeout(resolve, BOOT_POLL_MS));
          const after = await this.repo.computer(computerId);
          if (after?.state === 'error' && computer.state === 'booting') {
            throw new ApiError('NOT_READY', `the computer failed to boot: ${after.errorMessage ?? 'unknown error'}`);
          }
          continue;
        }
      }
    }
  }

  /**
   * Provisions a worker for the boot holding `fence`. The boot is only finished (running or error) while
   * the row still holds that fence: a stop or a stuck-boot takeover meanwhile wins, and the worker this
   * boot made is stopped again, so one computer never has two.
   */
  private async boot(computerId: string, fence: bigint): Promise<RunningComputer> {
    const claimed = await this.repo.computer(computerId);
    if (!claimed) throw notFound('computer');
    await this.publish(claimed);
    let binding: WorkerBinding;
    try {
      binding = await this.driver.provision({
        computerId,
        homeKey: claimed.homeKey,
        workspaceId: claimed.workspaceId,
        screenLimit: this.screenLimit,
        bindFence: fence,
      });
    } catch (error) {
      this.dropHeld(computerId, fence);
      const message = error instanceof Error ? error.message : String(error);
      this.logger.error(`booting computer ${computerId} failed: ${message}`);
      if (await this.repo.markError(computerId, fence, message.split('\n')[0]!)) await this.publishById(computerId);
      throw new ApiError('NOT_READY', `the computer failed to boot: ${message.split('\n')[0]}`);
    }
    const finished = await this.repo.markRunning(
      computerId,
      fence,
      {
        endpoint: binding.endpoint.baseUrl,
        tokenCipher: new Uint8Array(this.tokens.seal(binding.endpoint.token)),
        owner: binding.owner,
      },
      this.leaseExpiry(),
    );
    if (!finished) {
      this.dropHeld(computerId, fence);
      this.logger.warn(`computer ${computerId} was stopped or taken over while it booted; stopping the worker just started`);
      await this.driver.stop(binding);
      throw new ApiError('NOT_READY', 'the computer was stopped while it booted');
    }
    this.held.set(computerId, { fence, binding });
    const computer = await this.publishById(computerId);
    return { computer: computer!, binding };
  }

  // ------------------------------------------------------------------------------------ binding lease

  /**
   * Takes over a computer whose binding lease lapsed (its binder died or was cut off), under the power
   * lock so no suspend, wake or stop runs meanwhile. The winner of the compare-and-set (fence + 1) adopts
   * the worker and tells it the new fence, so the old binder's calls are refused; a worker this driver
   * must not adopt, or that does not take the fence, is stopped and the next use boots a new one.
   */
  async takeOver(seen: ComputerWithScreens): Promise<void> {
    await this.powerLock.with(seen.id, async () => {
      const computer = await this.repo.computer(seen.id);
      if (!computer || computer.bindFence !== seen.bindFence || !this.leaseLapsed(computer)) return;
      const binding = this.bindingOf(computer);
      if (!binding || (computer.state !== 'running' && computer.state !== 'suspended')) return;
      const fence = await this.repo.takeOverBinding(computer.id, computer.bindFence, new Date(), this.leaseExpiry());
      if (fence === null) return; // another replica won
      let reason: string;
      if (await this.driver.adopt(binding)) {
        try {
          const bound = await this.driver.bind(binding, fence);
          this.held.set(computer.id, { fence, binding: bound });
          this.logger.log(`took over the worker of computer ${computer.id} (bind fence ${fence})`);
          return;
        } catch (error) {
          reason = `its worker did not take the new binding: ${(error as Error).message}`;
        }
      } else {
        reason = 'its worker could not be taken over';
      }
      this.logger.warn(`computer ${computer.id}: ${reason}; stopping it`);
      await this.driver.stop(binding).catch((error: unknown) => this.logger.warn(`stopping: ${(error as Error).message}`));
      await this.repo.markStopped(computer.id, null, { bindFence: fence });
    });
    await this.publishById(seen.id);
  }

  /**
   * Renews the leases of the bindings this process holds (the lifecycle calls it every third of the lease).
   * A binding lost meanwhile is let go: when another replica took the same worker over it is theirs now,
   * otherwise the worker this process still runs for it serves nobody and is stopped.
   */
  async renewLeases(): Promise<void> {
    if (this.held.size === 0) return;
    const snapshot = new Map(this.held);
    const gone = await this.repo.renewBindings(new Map([...snapshot].map(([id, h]) => [id, h.fence])), this.leaseExpiry());
    for (const id of gone) {
      const mine = snapshot.get(id)!;
      if (this.held.get(id) !== mine) continue; // changed while we renewed
      this.held.delete(id);
      if (!mine.binding) continue; // a boot: it sees the lost claim itself when it finishes
      const now = await this.repo.computer(id);
      if (now?.bindOwner === mine.binding.owner) {
        this.logger.warn(`computer ${id}: another replica took its worker over (bind fence ${now.bindFence})`);
        this.driver.release(mine.binding);
      } else {
        await this.driver.stop(mine.binding).catch(() => undefined);
      }
    }
  }

  /** Bindings (and boots) this process is responsible for: computer id → bind fence. */
  heldBindings(): Map<string, bigint> {
    return new Map([...this.held].map(([id, h]) => [id, h.fence]));
  }

  /** The driver says a worker went away: its binding (that fence only) ends, and its computer counts as stopped. */
  private async workerLost(lost: LostWorker): Promise<void> {
    try {
      if (this.held.get(lost.computerId)?.fence === lost.bindFence) this.held.delete(lost.computerId);
      const message = `its worker went away (${lost.reason}); it starts again on the next use`;
      if (await this.repo.markStopped(lost.computerId, message, { bindFence: lost.bindFence })) {
        this.logger.warn(`computer ${lost.computerId}: ${message}`);
        await this.publishById(lost.computerId);
      }
    } catch (error) {
      this.logger.warn(`computer ${lost.computerId}: recording the lost worker failed: ${(error as Error).message}`);
    } finally {
      // After the row says so: the calls it ends then read the computer as stopped (COMPUTER_LOST).
      this.gone.gone(lost);
    }
  }

  /**
   * A call found `binding`'s worker unreachable (or another worker at its address, which refused the token):
   * COMPUTER_LOST when the worker is gone (it is fenced off here, so the next use boots a new one with a
   * higher fence), else the error as it is (a passing failure).
   */
  async lostOrUnreachable(binding: WorkerBinding, error: WorkerCallError): Promise<WorkerCallError> {
    const unsent = neverDelivered(error);
    const lost = () =>
      new WorkerCallError('COMPUTER_LOST', 0, unsent ? COMPUTER_LOST_MESSAGE_UNSENT : COMPUTER_LOST_MESSAGE_IN_FLIGHT, {
        cause: error.message,
        ...(unsent ? { connection: (error.details as { connection?: string } | undefined)?.connection ?? 'refused' } : {}),
      });
    const computer = await this.repo.computer(binding.computerId).catch(() => undefined);
    if (computer === undefined) return error; // the database did not answer either: nothing to conclude
    if (!computer || (computer.state !== 'running' && computer.state !== 'suspended')) return lost();
    if (computer.bindFence !== binding.bindFence) return computer.bindOwner === binding.owner ? error : lost();
    if (await this.driver.health(binding)) return error;
    await this.forget(computer, `the worker stopped answering: ${error.message}`);
    await this.publishById(computer.id);
    return lost();
  }

  /** A client of the computer's worker that turns a vanished worker into COMPUTER_LOST. */
  workerClient(binding: WorkerBinding): WorkerClient {
    return new WorkerClient(binding.endpoint, {
      unreachable: (error) => this.lostOrUnreachable(binding, error),
      gone: () => this.goneSignal(binding),
    });
  }

  /** Aborted when the driver reports `binding`'s worker gone: its calls in flight end at once. */
  goneSignal(binding: WorkerBinding): AbortSignal {
    return this.gone.signal(binding);
  }

  private leaseLapsed(computer: ComputerWithScreens): boolean {
    if (this.held.get(computer.id)?.fence === computer.bindFence) return false; // ours: renewed by us
    return computer.bindExpiresAt === null || computer.bindExpiresAt.getTime() < Date.now();
  }

  private leaseExpiry(): Date {
    return new Date(Date.now() + this.config.LAZYBOY_COMPUTER_BIND_LEASE_MS);
  }

  private dropHeld(computerId: string, fence: bigint): void {
    if (this.held.get(computerId)?.fence === fence) this.held.delete(computerId);
  }

  /** Wakes a suspended computer (nothing to do when it is not suspended). */
  async wake(computerId: string): Promise<void> {
    await this.powerLock.with(computerId, async () => {
      const computer = await this.repo.computer(computerId);
      if (!computer || computer.state !== 'suspended') return;
      const binding = this.bindingOf(computer);
      try {
        if (!binding) throw new WorkerCallError('UNREACHABLE', 0, 'no worker binding');
        await this.driver.wake(binding);
        await this.repo.markAwake(computerId);
      } catch (error) {
        if (!(error instanceof WorkerCallError) || error.code !== 'UNREACHABLE') throw error;
        // The worker is gone (host restarted, process killed): the next use boots a new one.
        await this.forget(computer, `the worker stopped answering: ${error.message}`);
      }
    });
    await this.publishById(computerId);
  }

  /**
   * Suspends a running computer no run is working on (a busy one is refused with CONFLICT). With
   * `idleBefore` (the idle loop) only if nobody has used or watched it since then, and a busy one is left
   * as it is. Returns whether it was suspended.
   */
  async suspend(computerId: string, idleBefore?: Date): Promise<boolean> {
    const suspended = await this.powerLock.with(computerId, async () => {
      const computer = await this.repo.computer(computerId);
      if (!computer || computer.state !== 'running') return false;
      if (await this.repo.hasBusyRun(computer)) {
        if (idleBefore) return false;
        throw busy('suspend');
      }
      const binding = this.bindingOf(computer);
      if (!binding || !(await this.repo.markSuspended(computerId, idleBefore))) return false;
      try {
        await this.driver.suspend(binding);
      } catch (error) {
        if (error instanceof WorkerCallError && error.code === 'UNREACHABLE') {
          await this.forget(computer, `the worker stopped answering: ${error.message}`);
          return false;
        }
        // The desktop refused (e.g. still booting a screen): it stays running.
        await this.repo.markAwake(computerId);
        throw error;
      }
      return true;
    });
    await this.publishById(computerId);
    return suspended;
  }

  /**
   * Ends the computer's worker and desktop (the home is kept). With `unlessBusy`, refuses with CONFLICT
   * while a run works on it (a person's click must not pull the rug); an instance admin's stop does not.
   */
  async stop(computerId: string, { unlessBusy = false }: { unlessBusy?: boolean } = {}): Promise<void> {
    await this.powerLock.with(computerId, async () => {
      const computer = await this.repo.computer(computerId);
      if (!computer || computer.state === 'stopped') return;
      if (unlessBusy && (await this.repo.hasBusyRun(computer))) throw busy('stop');
      const binding = this.bindingOf(computer);
      if (binding) await this.driver.stop(binding);
      this.dropHeld(computerId, computer.bindFence);
      await this.repo.markStopped(computerId);
    });
    await this.publishById(computerId);
  }

  /** The worker no longer answers: the computer counts as stopped (the driver clears what is left of it). */
  async forget(computer: ComputerWithScreens, reason: string): Promise<void> {
    this.logger.warn(`computer ${computer.id}: ${reason}; marking it stopped`);
    const binding = this.bindingOf(computer);
    if (binding && (await this.driver.adopt(binding))) await this.driver.stop(binding).catch(() => undefined);
    this.dropHeld(computer.id, computer.bindFence);
    // Only the binding we looked at: a computer rebooted meanwhile keeps its new worker. The reason stays on
    // the row, as the driver's own report of a lost worker does: whoever looks next sees why it stopped.
    await this.repo.markStopped(computer.id, `${reason}; it starts again on the next use`, {
      state: computer.state,
      bindFence: computer.bindFence,
    });
  }

  /** Runs `work` on the running computer; once more after a reboot if its worker turned out to be gone. */
  async withRetryOnLostWorker<T>(
    computerId: string,
    options: PowerOptions,
    work: (running: RunningComputer) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const running = await this.ensureRunning(computerId, options);
      try {
        return await work(running);
      } catch (error) {
        const lost = error instanceof WorkerCallError && RETRIED_CODES.has(error.code);
        if (!lost || attempt >= 2) throw error;
        if (error.code === 'UNREACHABLE') await this.forget(running.computer, error.message);
        // COMPUTER_LOST: fenced off already, the next round boots a new worker. COMPUTER_UNAVAILABLE: suspended
        // (or stopping) under us; the next round wakes or boots it. STALE_BINDER: taken over since we read it.
      }
    }
  }

  // --------------------------------------------------------------------------------------- screens

  /**
   * The agent's screen on the running computer: its slot allocated (Team computer: the lowest free one) and
   * its display started with the agent's own browser profile. With `fence`, the worker also records the
   * run's execution fence. The worker's control state is brought in line with the database's.
   */
  async ensureAgentScreen(
    agent: AgentRef,
    running: RunningComputer,
    lease?: (screen: ComputerScreen) => Promise<ComputerScreen>,
  ): Promise<ComputerScreen> {
    const { computer, binding } = running;
    const limit = computer.kind === 'private' ? 1 : this.screenLimit;
    const allocated = await this.repo.ensureScreen(computer.id, agent.id, limit);
    if (!allocated) {
      throw conflict('screens_full', `all ${limit} screens of the Team computer are in use by working agents; try again later`);
    }
    const worker = this.workerClient(binding);
    if (allocated.evicted) await worker.call(workerRoutes.stopScreen, { slot: allocated.evicted.slot });
    // The run's lease is taken (fence + 1) before the worker hears of it: from then on any older holder's
    // call is refused.
    let screen = lease ? await lease(allocated.screen) : allocated.screen;
    const info = await worker.call(workerRoutes.ensureScreen, {
      slot: screen.slot,
      profileKey: agent.id,
      ...(lease ? { fence: Number(screen.executionFence) } : {}),
    });
    await this.syncControl(worker, screen, info);
    const display = info.endpoints ? Number(info.endpoints.display.replace(/^:/, '')) : NaN;
    if (Number.isInteger(display) && display !== screen.display) screen = await this.repo.setDisplay(screen.id, display);
    const known = computer.screens.find((s) => s.id === screen.id);
    if (allocated.evicted || !known || known.display !== screen.display || lease) await this.publishById(computer.id);
    return screen;
  }

  /** A new worker knows no control holder: tell it what Postgres says (a person may hold the screen). */
  async syncControl(worker: WorkerClient, screen: ComputerScreen, info: ScreenInfo): Promise<void> {
    const fence = Number(screen.controlFence);
    if (fence <= info.control.fence) return;
    await worker.call(workerRoutes.setControl, { slot: screen.slot, holder: screen.controlHolder, fence });
  }

  /** Decrypted binding of a computer that has a worker. */
  bindingOf(computer: ComputerWithScreens): WorkerBinding | null {
    if (!computer.endpoint || !computer.controlTokenCipher || !computer.bindOwner) return null;
    try {
      return {
        computerId: computer.id,
        endpoint: {
          baseUrl: computer.endpoint,
          token: this.tokens.open(computer.controlTokenCipher),
          bindFence: Number(computer.bindFence),
        },
        owner: computer.bindOwner,
        bindFence: computer.bindFence,
      };
    } catch (error) {
      this.logger.warn(`computer ${computer.id}: ${(error as Error).message}`);
      return null;
    }
  }

  async touchActive(computerId: string): Promise<void> {
    await this.repo.touchActive(computerId);
  }

  // -------------------------------------------------------------------------------------- realtime

  async publishById(computerId: string): Promise<ComputerWithScreens | null> {
    const computer = await this.repo.computer(computerId);
    if (computer) await this.publish(computer);
    return computer;
  }

  /** computer.updated to the workspace and to every agent working on it. Best effort. */
  async publish(computer: ComputerWithScreens): Promise<void> {
    if (!this.realtime) return;
    const agents = new Set([
      ...(computer.agentId ? [computer.agentId] : []),
      ...computer.screens.flatMap((s) => (s.agentId ? [s.agentId] : [])),
    ]);
    const rooms: RealtimeRoom[] = [
      { kind: 'workspace', id: computer.workspaceId },
      ...[...agents].map((id) => ({ kind: 'agent' as const, id })),
    ];
    try {
      await this.realtime.publish(rooms, { type: 'computer.updated', computer: computerView(computer) });
    } catch (error) {
      this.logger.warn(`publishing computer.updated failed: ${(error as Error).message}`);
    }
  }
}

/** A worker call that failed because of the worker, not the request: done once more on the computer as it is now. */
const RETRIED_CODES = new Set<WorkerCallError['code']>(['UNREACHABLE', 'COMPUTER_UNAVAILABLE', 'COMPUTER_LOST', 'STALE_BINDER']);

/** A binding this process is responsible for; `binding` once the boot has finished. */
interface Held {
  fence: bigint;
  binding?: WorkerBinding;
}

function busy(verb: string): ApiError {
  return conflict('computer_busy', `an agent is working on this computer; cannot ${verb} it now`);
}

interface SharedBringUp {
  promise: Promise<RunningComputer>;
  /** Every waiting caller hears the steps (booting), late joiners the latest one at once. */
  steps: Set<(step: BusyStep) => void>;
  lastStep: BusyStep | undefined;
}

/** `promise`, or the signal's reason once it aborts (the work itself goes on for the others waiting). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
