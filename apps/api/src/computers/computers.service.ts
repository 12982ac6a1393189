import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  workerRoutes,
  type BotComputerView,
  type BusyStep,
  type ComputerView,
  type RealtimeRoom,
  type ScreenInfo,
} from '@lazyboy/contracts';
import type { Principal } from '../auth/principal.js';
import { ApiError, conflict, notFound } from '../common/api-error.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { SecretBox } from '../crypto/secret-box.js';
import type { ComputerScreen } from '../persistence/generated/client.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { computerView, screenView } from './computer-view.js';
import { ComputersRepository, type BotRef, type ComputerWithScreens } from './computers.repository.js';
import { PoolDriver, type WorkerBinding } from './pool-driver.js';
import { PowerLock } from './power-lock.js';
import { WorkerCallError, WorkerClient } from './worker-client.js';

/** A boot that has not finished after this long was abandoned (its API died): another may take over. */
export const STUCK_BOOT_MS = 180_000;
const BOOT_POLL_MS = 250;

export interface RunningComputer {
  computer: ComputerWithScreens;
  binding: WorkerBinding;
}

export interface PowerOptions {
  onStep?: (step: BusyStep) => void;
  signal?: AbortSignal;
}

export interface BootForBotOptions extends PowerOptions {
  /** Takes the run's execution lease on the screen before the worker hears of it (see ensureBotScreen). */
  lease?: (screen: ComputerScreen) => Promise<ComputerScreen>;
}

/**
 * The agents' computers: which one an agent works on (its private one or the workspace's Team computer,
 * one screen per agent), and their life cycle booting → running ⇄ suspended → stopped (or error), kept in
 * Postgres and carried out by the pool driver. Safe under concurrency: one caller in any replica boots
 * (a compare-and-set on the state), suspend and wake serialise on a per-computer lock.
 */
/** How often a boot that is still going marks its computer in use. */
const BOOT_ACTIVITY_MS = 1_000;

@Injectable()
export class ComputersService {
  private readonly logger = new Logger(ComputersService.name);
  private readonly tokens: SecretBox;
  private readonly ensuring = new Map<string, SharedBringUp>();
  closing = false;

  constructor(
    private readonly repo: ComputersRepository,
    private readonly driver: PoolDriver,
    private readonly powerLock: PowerLock,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Optional() private readonly realtime?: RealtimePublisher,
  ) {
    this.tokens = new SecretBox(config.LAZYBOY_VAULT_KEY, 'computer-control-token');
  }

  get screenLimit(): number {
    return this.config.TEAM_SCREEN_LIMIT;
  }

  // ------------------------------------------------------------------------------------------- bots

  /** The bot the principal names, or 404 (a foreign bot looks like a missing one). */
  async visibleBot(principal: Principal, botId: string): Promise<BotRef> {
    const bot = await this.repo.visibleBot(principal, botId);
    if (!bot) throw notFound('bot');
    return bot;
  }

  async bot(botId: string): Promise<BotRef> {
    const bot = await this.repo.bot(botId);
    if (!bot) throw notFound('bot');
    return bot;
  }

  async botComputerView(bot: BotRef): Promise<BotComputerView> {
    const computer = await this.repo.computerForBot(bot);
    if (!computer) return { computer: null, screen: null };
    const screen = computer.screens.find((s) => s.botId === bot.id) ?? null;
    return { computer: computerView(computer), screen: screen ? screenView(screen) : null };
  }

  async workspaceComputers(workspaceId: string): Promise<ComputerView[]> {
    return (await this.repo.workspaceComputers(workspaceId)).map(computerView);
  }

  /** The bot's computer, created (stopped) on first use. */
  async computerOf(bot: BotRef): Promise<ComputerWithScreens> {
    return this.repo.ensureComputerForBot(bot);
  }

  /** Boots or wakes the bot's computer and starts the bot's screen on it. */
  async bootForBot(
    bot: BotRef,
    { lease, ...options }: BootForBotOptions = {},
  ): Promise<{ running: RunningComputer; screen: ComputerScreen }> {
    const computer = await this.computerOf(bot);
    // Marks the computer in use before looking at its state, and keeps it so while the agent's screen
    // boots (seconds on a busy host), so the idle loop cannot suspend it under the person waiting for it.
    await this.repo.touchActive(computer.id);
    const keepActive = setInterval(() => void this.repo.touchActive(computer.id).catch(() => undefined), BOOT_ACTIVITY_MS);
    try {
      return await this.withRetryOnLostWorker(computer.id, options, async (running) => ({
        running,
        screen: await this.ensureBotScreen(bot, running, lease),
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
          const fence = await this.repo.claimBoot(computerId, new Date(Date.now() - STUCK_BOOT_MS));
          if (fence !== null) return this.boot(computerId, fence);
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
      binding = await this.driver.provision({ computerId, homeKey: claimed.homeKey, screenLimit: this.screenLimit });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.error(`booting computer ${computerId} failed: ${message}`);
      if (await this.repo.markError(computerId, fence, message.split('\n')[0]!)) await this.publishById(computerId);
      throw new ApiError('NOT_READY', `the computer failed to boot: ${message.split('\n')[0]}`);
    }
    const finished = await this.repo.markRunning(computerId, fence, {
      endpoint: binding.endpoint.baseUrl,
      tokenCipher: new Uint8Array(this.tokens.seal(binding.endpoint.token)),
      owner: binding.owner,
    });
    if (!finished) {
      this.logger.warn(`computer ${computerId} was stopped or taken over while it booted; stopping the worker just started`);
      await this.driver.stop(binding);
      throw new ApiError('NOT_READY', 'the computer was stopped while it booted');
    }
    const computer = await this.publishById(computerId);
    return { computer: computer!, binding };
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
      await this.repo.markStopped(computerId);
    });
    await this.publishById(computerId);
  }

  /** The worker no longer answers: the computer counts as stopped (the driver clears what is left of it). */
  async forget(computer: ComputerWithScreens, reason: string): Promise<void> {
    this.logger.warn(`computer ${computer.id}: ${reason}; marking it stopped`);
    const binding = this.bindingOf(computer);
    if (binding && this.driver.adopt(binding)) await this.driver.stop(binding).catch(() => undefined);
    // Only the binding we looked at: a computer rebooted meanwhile keeps its new worker.
    await this.repo.markStopped(computer.id, null, { state: computer.state, bindFence: computer.bindFence });
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
        const lost = error instanceof WorkerCallError && (error.code === 'UNREACHABLE' || error.code === 'COMPUTER_UNAVAILABLE');
        if (!lost || attempt >= 2) throw error;
        if (error.code === 'UNREACHABLE') await this.forget(running.computer, error.message);
        // COMPUTER_UNAVAILABLE: suspended (or stopping) under us; the next round wakes or boots it.
      }
    }
  }

  // --------------------------------------------------------------------------------------- screens

  /**
   * The bot's screen on the running computer: its slot allocated (Team computer: the lowest free one) and
   * its display started with the bot's own browser profile. With `fence`, the worker also records the
   * run's execution fence. The worker's control state is brought in line with the database's.
   */
  async ensureBotScreen(
    bot: BotRef,
    running: RunningComputer,
    lease?: (screen: ComputerScreen) => Promise<ComputerScreen>,
  ): Promise<ComputerScreen> {
    const { computer, binding } = running;
    const limit = computer.kind === 'private' ? 1 : this.screenLimit;
    const allocated = await this.repo.ensureScreen(computer.id, bot.id, limit);
    if (!allocated) {
      throw conflict('screens_full', `all ${limit} screens of the Team computer are in use by working agents; try again later`);
    }
    const worker = new WorkerClient(binding.endpoint);
    if (allocated.evicted) await worker.call(workerRoutes.stopScreen, { slot: allocated.evicted.slot });
    // The run's lease is taken (fence + 1) before the worker hears of it: from then on any older holder's
    // call is refused.
    let screen = lease ? await lease(allocated.screen) : allocated.screen;
    const info = await worker.call(workerRoutes.ensureScreen, {
      slot: screen.slot,
      profileKey: bot.id,
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
        endpoint: { baseUrl: computer.endpoint, token: this.tokens.open(computer.controlTokenCipher) },
        owner: computer.bindOwner,
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
    const bots = new Set([
      ...(computer.botId ? [computer.botId] : []),
      ...computer.screens.flatMap((s) => (s.botId ? [s.botId] : [])),
    ]);
    const rooms: RealtimeRoom[] = [
      { kind: 'workspace', id: computer.workspaceId },
      ...[...bots].map((id) => ({ kind: 'bot' as const, id })),
    ];
    try {
      await this.realtime.publish(rooms, { type: 'computer.updated', computer: computerView(computer) });
    } catch (error) {
      this.logger.warn(`publishing computer.updated failed: ${(error as Error).message}`);
    }
  }
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
