import { RunVaults } from '../vault/run-vaults.js';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { MessageNotice, ModelClient } from '@lazyboy/contracts';
import { closeModelClient } from '@lazyboy/model';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import type { Message } from '../persistence/generated/client.js';
import { RunScreens } from '../computers/run-screens.js';
import { ModelChain } from '../model/model-chain.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { toMessageView } from '../chats/message-views.js';
import { RunExecution } from './run-execution.js';
import { RunMessagesRepository } from './run-messages.repository.js';
import { RunSignals } from './run-signals.js';
import type { RunLease } from './run-lease.js';
import { ONE_EXECUTING_RUN_PER_AGENT, RunsRepository, type RunContext } from './runs.repository.js';
import { violatesUniqueIndex } from '../persistence/prisma-errors.js';
import { RunsService } from './runs.service.js';

/** Executors also look at the queue this often, for wake-ups lost while Redis was away and for expired leases. */
const SWEEP_MS = 2_000;
/** How many earlier chat messages a new run sees. */
const CONTEXT_LIMIT = 40;

/**
 * The run executor of this API replica (when LAZYBOY_RUNNER is not false): claims queued runs with fenced
 * leases as soon as Redis rings, up to LAZYBOY_RUN_CONCURRENCY at once, and drives each through the agent
 * loop. Postgres is the queue; Redis only saves the polling delay.
 */
@Injectable()
export class RunExecutor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunExecutor.name);
  readonly owner = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly active = new Map<string, { execution: RunExecution | null; done: Promise<void> }>();
  /** Slots held for runs the accept path is leasing directly to this replica (see `reserveSlot`). */
  private reserved = 0;
  private pumping = false;
  private pumpAgain = false;
  private sweep: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    private readonly runs: RunsRepository,
    private readonly messages: RunMessagesRepository,
    private readonly signals: RunSignals,
    private readonly service: RunsService,
    private readonly screens: RunScreens,
    private readonly chain: ModelChain,
    private readonly realtime: RealtimePublisher,
    private readonly vaults: RunVaults,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.LAZYBOY_RUNNER) return;
    this.signals.onWake(() => this.pump());
    this.signals.onStop((runId) => this.active.get(runId)?.execution?.stop('cancel'));
    this.sweep = setInterval(() => this.pump(), SWEEP_MS);
    this.sweep.unref();
    this.pump();
  }

  /** Claims runs until the queue is empty or every slot is busy; one pump at a time, re-run if rung meanwhile. */
  pump(): void {
    if (this.closing) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void (async () => {
      try {
        do {
          this.pumpAgain = false;
          while (!this.closing && this.freeSlots() > 0) {
            // One statement leases a batch for every free slot: the 50th queued run does not wait behind 49 claims.
            const free = this.freeSlots();
            const claimed = await this.runs.claimNext(this.owner, this.config.LAZYBOY_RUN_LEASE_MS, free);
            if (claimed.length === 0) break;
            for (const runId of claimed) this.start(runId);
          }
        } while (this.pumpAgain && !this.closing);
      } catch (error) {
        // Lost a race for an agent to another replica's accept or claim: nothing was leased, look again.
        if (violatesUniqueIndex(error, ONE_EXECUTING_RUN_PER_AGENT)) setImmediate(() => this.pump());
        else this.logger.warn(`claiming runs failed: ${(error as Error).message}`);
      } finally {
        this.pumping = false;
      }
    })();
  }

  /**
   * Holds a free slot for a run the accept path leases to this replica in its own statement; null when this
   * replica runs nothing or is full. The caller ends the hold with `adopt` (the run was leased to us) or
   * `release`, exactly once.
   */
  reserveSlot(): { owner: string; leaseMs: number; adopt(runId: string): void; release(): void } | null {
    if (!this.config.LAZYBOY_RUNNER || this.closing || this.freeSlots() <= 0) return null;
    this.reserved += 1;
    let held = true;
    const end = () => {
      if (!held) return false;
      held = false;
      this.reserved -= 1;
      return true;
    };
    return {
      owner: this.owner,
      leaseMs: this.config.LAZYBOY_RUN_LEASE_MS,
      adopt: (runId) => {
        if (end()) this.start(runId);
      },
      release: () => {
        end();
      },
    };
  }

  private freeSlots(): number {
    return this.config.LAZYBOY_RUN_CONCURRENCY - this.active.size - this.reserved;
  }

  private start(runId: string): void {
    const done = this.runs
      .executionContext(runId)
      .then((run) => {
        if (!run) return;
        const execution = this.execution(run);
        const entry = this.active.get(runId);
        if (entry) entry.execution = execution;
        if (this.closing) execution.stop('shutdown');
        return execution.execute();
      })
      .catch((error: unknown) => this.logger.error(`run ${runId}: ${(error as Error).message}`))
      .finally(() => {
        this.active.delete(runId);
        // The agent is free again: a run queued behind this one may start (here or on another replica).
        void this.signals.wake();
        this.pump();
      });
    this.active.set(runId, { execution: this.active.get(runId)?.execution ?? null, done });
  }

  private execution(run: RunContext): RunExecution {
    return new RunExecution(run, {
      runs: this.runs,
      screens: this.screens,
      leaseMs: this.config.LAZYBOY_RUN_LEASE_MS,
      model: (r) => this.modelFor(r),
      vault: (r) => this.vaults.forRun({ workspaceId: r.workspaceId, agentId: r.agentId, runId: r.id }),
      closeModel: (client: ModelClient) => closeModelClient(client),
      history: (r) => this.messages.history(r, CONTEXT_LIMIT),
      publishRun: (r) => this.service.publish(r),
      resumeAfterRelease: (agentId) => this.service.resumeAfterRelease(agentId),
      publishMessage: (m: Message) =>
        this.realtime.publish([{ kind: 'chat', id: m.chatId }], { type: 'message.created', message: toMessageView(m) }),
      writeMessage: (lease: RunLease, r: RunContext, text: string, progress: boolean, notice?: MessageNotice) =>
        this.messages.write(lease, r, text, progress, notice),
    });
  }

  /** The run's model, decided where every model is: the agent's settings, its workspace's, the host's. */
  private modelFor(run: RunContext): Promise<ModelClient> {
    return this.chain.clientFor({
      workspaceId: run.workspaceId,
      workspace: this.chain.linkOf(run.workspace),
      agent: this.chain.linkOf(run.agent),
    });
  }

  /** A stopping replica hands its runs back to the queue (they resume elsewhere from their checkpoints). */
  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.sweep) clearInterval(this.sweep);
    for (const { execution } of this.active.values()) execution?.stop('shutdown');
    await Promise.all([...this.active.values()].map((a) => a.done));
  }
}
