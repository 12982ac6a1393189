import { Logger } from '@nestjs/common';
import {
  emptyCheckpoint,
  redactingModelClient,
  redactingTools,
  Runtime,
  SecretRedactor,
  SERVICE_LIMITS,
  type AgentEvent,
  type Checkpoint,
  type RunOutcome,
  type RunResult,
} from '@lazyboy/agent';
import type { BusyStep, ChatMessage, MessageNotice, ModelClient, RunErrorCode, RunView } from '@lazyboy/contracts';
import { ModelError, modelErrorCode } from '@lazyboy/model';
import type { Message, Run } from '../persistence/generated/client.js';
import type { AcquiredScreen, RunScreens } from '../computers/run-screens.js';
import { computerTools, describeStep, sameStep, vaultTools } from '../agent-tools/index.js';
import type { RunVaultSession } from '../vault/run-vaults.js';
import { StaleLeaseError, type RunLease } from './run-lease.js';
import type { RunContext, RunsRepository } from './runs.repository.js';
import { readRunState, type StoredRunState } from './run-state.js';
import { toRunView } from './run-views.js';
import { serviceSystemPrompt } from './system-prompt.js';

const THINKING: BusyStep = { kind: 'thinking' };

/** Why an execution stops before the loop finishes on its own. */
export type StopReason = 'cancel' | 'shutdown' | 'lease_lost';

/** Event types kept in RunEvent (deltas and heartbeats are not: they are noise once the run is over). */
const STORED_EVENTS = new Set<AgentEvent['type']>([
  'tool_call',
  'tool_result',
  'message',
  'plan',
  'question',
  'progress',
  'background',
  'done',
  'blocked',
]);

export interface ExecutionDeps {
  runs: RunsRepository;
  screens: RunScreens;
  leaseMs: number;
  model(run: RunContext): Promise<ModelClient>;
  /** The run's saved logins: its tools use them, its redactor hides their secrets. */
  vault(run: RunContext): Promise<RunVaultSession>;
  closeModel(client: ModelClient): Promise<void>;
  /** The chat history before the run's trigger message, oldest first. */
  history(run: RunContext): Promise<ChatMessage[]>;
  publishRun(run: RunView): Promise<void>;
  publishMessage(message: Message): Promise<void>;
  /** Re-queues the agent's run parked in waiting_takeover. */
  resumeAfterRelease(agentId: string): Promise<unknown>;
  /** Writes an assistant message of the run (fenced by the lease); `notice` marks the one a run's error ends it with. */
  writeMessage(lease: RunLease, run: RunContext, text: string, progress: boolean, notice?: MessageNotice): Promise<Message>;
}

/**
 * One claimed run, executed to its end, its park, or the loss of its lease. Every write carries the
 * lease's fence: once another executor has taken the run over, nothing of this one lands.
 */
export class RunExecution {
  private readonly logger = new Logger('RunExecution');
  private readonly abort = new AbortController();
  private stopReason: StopReason | null = null;
  private writes: Promise<void> = Promise.resolve();
  private seq = 0;
  private pendingEvents: { seq: number; type: string; payload: unknown }[] = [];
  private acquired: AcquiredScreen | null = null;
  private lastStep: BusyStep | null = null;
  /** The last failure of a model call: the loop keeps only its text, the run's error code comes from it. */
  private modelFailure: unknown;

  readonly lease: RunLease;
  /** What subscribers last saw of the run. */
  private view: RunView;

  constructor(
    private readonly run: RunContext,
    private readonly deps: ExecutionDeps,
  ) {
    this.lease = { runId: run.id, fence: run.leaseFence };
    this.view = toRunView(run);
  }

  get runId(): string {
    return this.run.id;
  }

  /** Stops at the next safe boundary: cancel (the run ends cancelled), shutdown (requeued), lease lost (hands off). */
  stop(reason: StopReason): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.abort.abort(new Error(reason));
  }

  async execute(): Promise<void> {
    const renewal = setInterval(() => void this.renew(), Math.max(250, Math.min(this.deps.leaseMs / 3, 30_000)));
    renewal.unref();
    let model: ModelClient | null = null;
    try {
      this.seq = await this.deps.runs.lastEventSeq(this.run.id);
      await this.deps.runs.setRunning(this.lease, THINKING, this.deps.leaseMs);
      this.lastStep = THINKING;
      await this.publish({ status: 'running', busyStep: THINKING });
      model = await this.deps.model(this.run);
      const result = await this.loop(this.recordingFailures(model));
      await this.flush();
      await this.conclude(result);
    } catch (error) {
      await this.writes.catch(() => undefined);
      if (error instanceof StaleLeaseError || this.stopReason === 'lease_lost') {
        this.logger.warn(`run ${this.run.id}: lease lost to another executor; stopping without further writes`);
      } else {
        await this.fail(error);
      }
    } finally {
      clearInterval(renewal);
      if (model) await this.deps.closeModel(model).catch(() => undefined);
      if (this.acquired) await this.deps.screens.release(this.run.id).catch(() => undefined);
    }
  }

  /** The same client, remembering the error of a call that failed. */
  private recordingFailures(model: ModelClient): ModelClient {
    return {
      description: model.description,
      complete: (request, onEvent) =>
        model.complete(request, onEvent).catch((error: unknown) => {
          this.modelFailure = error;
          throw error;
        }),
    };
  }

  private async loop(model: ModelClient): Promise<RunResult> {
    const kind = this.run.kind;
    const chatOnly = kind === 'chat';
    const stored = readRunState(this.run.checkpoint);
    const vault = await this.deps.vault(this.run);
    // Nothing the model reads carries a saved secret: tool results (and streamed command output) are
    // redacted as they come back, and every request once more on its way out.
    const redactor = new SecretRedactor(() => vault.secretsNow());
    const screens = {
      get: (signal: AbortSignal) => this.screen(signal),
      // A newer fence on the screen: another executor holds this run now.
      onLeaseLost: () => {
        this.acquired = null;
        this.stop('lease_lost');
      },
    };
    const runtime = new Runtime({
      model: redactingModelClient(model, redactor),
      tools: chatOnly ? [] : redactingTools([...computerTools(screens, { redactor }), ...vaultTools(vault, screens)], redactor),
      human: { mode: 'turn-ending' },
      systemPrompt: serviceSystemPrompt({
        agentName: this.run.agent.name,
        instructions: this.run.agent.instructions,
        now: new Date(),
        chatOnly,
      }),
      limits: SERVICE_LIMITS[kind],
      chatOnly,
      checkpoints: { save: (checkpoint) => this.saveCheckpoint(checkpoint) },
    });
    runtime.setEventHandler((event) => this.onEvent(event));
    const signal = this.abort.signal;
    if (stored) {
      // A parked run answered or released, or a run whose executor died: continue from its checkpoint.
      // recoverCheckpoint (inside run) turns an interrupted call into an explicit "outcome unknown".
      return runtime.run({ resume: stored.agent, ...(stored.answer ? { answer: stored.answer } : {}), signal });
    }
    const base: Checkpoint = { ...emptyCheckpoint(), history: await this.deps.history(this.run) };
    const text = triggerText(this.run);
    return runtime.run({ ...(base.history.length > 0 ? { resume: base } : {}), message: text, signal });
  }

  private async screen(signal: AbortSignal): Promise<AcquiredScreen> {
    if (this.acquired) return this.acquired;
    this.acquired = await this.deps.screens.acquire({
      workspaceId: this.run.workspaceId,
      agentId: this.run.agentId,
      runId: this.run.id,
      signal,
      onStep: (step) => this.setStep(step),
    });
    return this.acquired;
  }

  // --- what the loop reports --------------------------------------------------------------------

  private onEvent(event: AgentEvent): void {
    if (event.type === 'status' && event.status === 'thinking') this.setStep(THINKING);
    if (event.type === 'tool_call') this.setStep(describeStep(event.call.name, safeJson(event.call.arguments)));
    if (event.type === 'message') {
      this.enqueue(async () => {
        const message = await this.deps.writeMessage(this.lease, this.run, event.text, event.progress);
        await this.deps.publishMessage(message);
      });
    }
    if (STORED_EVENTS.has(event.type)) {
      // Events that arrive while earlier writes are in flight are stored together, in one transaction.
      this.pendingEvents.push({ seq: ++this.seq, type: event.type, payload: eventPayload(event) });
      if (this.pendingEvents.length === 1) {
        this.enqueue(() => this.deps.runs.appendEvents(this.lease, this.run.workspaceId, this.pendingEvents.splice(0)));
      }
    }
  }

  private setStep(step: BusyStep): void {
    if (sameStep(step, this.lastStep)) return;
    this.lastStep = step;
    this.enqueue(async () => {
      await this.deps.runs.setRunning(this.lease, step, this.deps.leaseMs);
      await this.publish({ busyStep: step });
    });
  }

  /** Writes happen one after another, in event order; the first stale one stops the run. */
  private enqueue(write: () => Promise<unknown>): void {
    this.writes = this.writes.then(async () => {
      if (this.stopReason === 'lease_lost') return;
      try {
        await write();
      } catch (error) {
        if (error instanceof StaleLeaseError) this.stop('lease_lost');
        else this.logger.warn(`run ${this.run.id}: a write failed: ${(error as Error).message}`);
      }
    });
  }

  private async flush(): Promise<void> {
    await this.writes;
    if (this.stopReason === 'lease_lost') throw new StaleLeaseError(this.run.id);
  }

  /**
   * Saved before and after every tool call. The busy step travels with it (the call about to run, or
   * thinking once it returned), so the step costs no write of its own.
   */
  private async saveCheckpoint(checkpoint: Checkpoint): Promise<void> {
    await this.flush();
    const { inflight } = checkpoint;
    const step = inflight ? describeStep(inflight.name, safeJson(inflight.arguments)) : THINKING;
    const changed = !sameStep(step, this.lastStep);
    this.lastStep = step;
    const plan = checkpoint.plan.map(({ title, status }) => ({ title, status }));
    const planChanged = JSON.stringify(plan) !== JSON.stringify(this.view.plan);
    try {
      await this.deps.runs.saveState(this.lease, { agent: checkpoint }, this.deps.leaseMs, changed ? step : undefined);
    } catch (error) {
      if (error instanceof StaleLeaseError) this.stop('lease_lost');
      throw error;
    }
    // The busy step and the plan checklist reach people with the checkpoint that holds them.
    if (changed || planChanged) await this.publish({ busyStep: step, roundsUsed: checkpoint.roundsUsed, plan });
  }

  private async renew(): Promise<void> {
    try {
      const { held, cancelRequested } = await this.deps.runs.renew(this.lease, this.deps.leaseMs);
      if (!held) this.stop('lease_lost');
      else if (cancelRequested) this.stop('cancel');
    } catch (error) {
      this.logger.warn(`run ${this.run.id}: lease renewal failed: ${(error as Error).message}`);
    }
  }

  // --- how it ends --------------------------------------------------------------------------------

  private async conclude({ outcome, checkpoint }: RunResult): Promise<void> {
    const state: StoredRunState = { agent: checkpoint };
    if (this.stopReason === 'lease_lost') throw new StaleLeaseError(this.run.id);
    if (outcome.status === 'cancelled') {
      if (this.stopReason === 'shutdown') {
        // This process is going away: hand the run back to the queue; another executor resumes it.
        await this.deps.runs.requeue(this.lease);
        return this.publish({ status: 'queued', busyStep: null });
      }
      return this.publishRow(await this.deps.runs.finish(this.lease, { status: 'cancelled', state }));
    }
    const text = outcomeText(outcome);
    // A guard's reason and a model's failure are the service's English, not the agent's words: the message
    // carries the code, which people read in their own language.
    const notice =
      outcome.status === 'blocked' && outcome.code !== 'reported'
        ? noticeOf(this.blockedCode(outcome.code), this.modelFailure)
        : undefined;
    if (text) await this.say(text, notice);
    switch (outcome.status) {
      case 'waiting_input':
        return this.publishRow(await this.deps.runs.park(this.lease, outcome.status, state, { text }));
      case 'waiting_takeover': {
        await this.publishRow(await this.deps.runs.park(this.lease, outcome.status, state, { text }));
        // Parked because a person held the screen (not because the agent asked for a takeover): if they have
        // handed it back meanwhile, no release is coming any more, so continue at once.
        if (
          outcome.question.tool !== 'request_takeover' &&
          (await this.deps.screens.controlHolder(this.run.agentId)) === 'agent'
        ) {
          await this.deps.resumeAfterRelease(this.run.agentId);
        }
        return;
      }
      case 'done':
        return this.publishRow(await this.deps.runs.finish(this.lease, { status: 'completed', result: { text }, state }));
      case 'blocked':
        return this.publishRow(
          await this.deps.runs.finish(this.lease, {
            status: 'blocked',
            result: { text },
            errorCode: this.blockedCode(outcome.code),
            errorMessage: outcome.reason,
            state,
          }),
        );
    }
  }

  /** A model failure says which (model_key_refused, model_unreachable…); the agent's own guards say themselves. */
  private blockedCode(code: RunErrorCode): RunErrorCode {
    return code === 'model_error' ? (modelErrorCode(this.modelFailure) ?? code) : code;
  }

  private async fail(error: unknown): Promise<void> {
    // Only the stable codes of libs/contracts: a model's failure its own, anything else execution_failed.
    const errorCode: RunErrorCode = modelErrorCode(error) ?? 'execution_failed';
    const message = (error as Error).message ?? String(error);
    this.logger.error(`run ${this.run.id} failed: ${message}`);
    try {
      await this.say(`I could not run this: ${message}`, noticeOf(errorCode, error));
      await this.publishRow(await this.deps.runs.finish(this.lease, { status: 'failed', errorCode, errorMessage: message }));
    } catch (inner) {
      if (!(inner instanceof StaleLeaseError))
        this.logger.error(`run ${this.run.id}: recording the failure failed: ${(inner as Error).message}`);
    }
  }

  private async say(text: string, notice?: MessageNotice): Promise<void> {
    const message = await this.deps.writeMessage(this.lease, this.run, text, false, notice);
    await this.deps.publishMessage(message);
  }

  /** Publishes a change this execution just wrote (no read back: it knows what it wrote). */
  private async publish(change: Partial<RunView>): Promise<void> {
    this.view = { ...this.view, ...change };
    await this.deps.publishRun(this.view);
  }

  private async publishRow(run: Run): Promise<void> {
    this.view = toRunView(run);
    await this.deps.publishRun(this.view);
  }
}

/** The notice of a run that ended on `code`, with the provider's own words when a model failure caused it. */
function noticeOf(code: RunErrorCode, failure: unknown): MessageNotice {
  const providerMessage = failure instanceof ModelError ? (failure.providerMessage ?? null) : null;
  return { code, providerMessage: code.startsWith('model_') ? providerMessage : null };
}

function triggerText(run: RunContext): string {
  const content = run.triggerMessage?.content as { text?: unknown } | null | undefined;
  return typeof content?.text === 'string' ? content.text : '';
}

/** The text people see when the run ends or parks. */
function outcomeText(outcome: RunOutcome): string {
  switch (outcome.status) {
    case 'done':
      return outcome.summary;
    case 'blocked':
      return outcome.reason;
    case 'waiting_input':
    case 'waiting_takeover':
      return outcome.question.draft ? `${outcome.question.prompt}\n\n${outcome.question.draft}` : outcome.question.prompt;
    case 'cancelled':
      return '';
  }
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** What a stored event keeps: tool calls without their arguments' secrets (typed text is dropped). */
function eventPayload(event: AgentEvent): unknown {
  if (event.type === 'tool_call')
    return { name: event.call.name, step: describeStep(event.call.name, safeJson(event.call.arguments)) };
  return event;
}
