import type { ChatMessage, ContentPart, ModelClient, ModelResponse, ToolCall } from '@lazyboy/contracts';
import { BackgroundJobs, revivalMessage } from './loop/background.js';
import { emptyCheckpoint, NOT_STARTED, recoverCheckpoint, type Checkpoint } from './loop/checkpoint.js';
import type { LoopDirective } from './loop/directives.js';
import type { AgentEvent, AgentEventHandler } from './loop/events.js';
import {
  EMPTY_RESPONSE_RETRIES,
  IDENTICAL_REMIND_AT,
  IDENTICAL_REMINDER,
  IDENTICAL_STOP_AT,
  IdenticalRoundGuard,
  NO_PROGRESS_STOP_AT,
  NoProgressGuard,
} from './loop/guards.js';
import type { RoundLimits } from './loop/limits.js';
import type { BlockedCode, RunOutcome } from './loop/outcome.js';
import { isRevision, planHasOpenSteps, type PlanStep } from './loop/plan.js';
import { isSmallTalk } from './loop/small-talk.js';
import { trimForRequest, type TrimOptions } from './loop/trimming.js';
import { systemClock, type CheckpointStore, type Clock, type HumanAnswer, type HumanBroker } from './ports.js';
import { CONTROL_TOOLS } from './tools/control-tools.js';
import { answerToResult, humanTools, type HumanToolOptions } from './tools/human-tools.js';
import { ToolRegistry } from './tools/registry.js';
import { subagentTools } from './tools/subagent-tools.js';
import type { ToolDefinition, ToolOutcome } from './tools/tool.js';

export const HEARTBEAT_MS = 20_000;

export interface RuntimeOptions {
  model: ModelClient;
  /** The run's working tools; the completion contract and the human gates are added by the runtime. */
  tools: readonly ToolDefinition[];
  human: HumanBroker;
  humanTools?: HumanToolOptions;
  systemPrompt: string;
  limits: RoundLimits;
  /** A chat run: plain text only, no tools, whatever the message says. */
  chatOnly?: boolean;
  checkpoints?: CheckpointStore;
  clock?: Clock;
  trim?: Partial<TrimOptions>;
  /** Offer spawn_subagent and friends (children get the same working tools, without subagents). */
  subagents?: boolean;
}

export interface RunInput {
  /** The user's new message; absent when resuming without one. */
  message?: string | ContentPart[];
  /** State to continue from (a saved checkpoint); recovered before use. */
  resume?: Checkpoint;
  /** The answer to the parked question of `resume` (the next user message, or the release). */
  answer?: HumanAnswer;
  signal?: AbortSignal;
}

export interface RunResult {
  outcome: RunOutcome;
  checkpoint: Checkpoint;
}

interface ExecutedCall {
  call: ToolCall;
  outcome: ToolOutcome;
  /** The call was refused before running (unknown tool, bad arguments, batch rule). */
  invalid: boolean;
}

class Cancelled extends Error {}

/** The model call failed for good (after the provider's own retries). */
class ModelCallFailed extends Error {}

/**
 * The agent loop shared by the CLI and the service: observe → decide → act → verify → respond, one model
 * round at a time, with the completion contract, human gates, guards, budgets, checkpoints and
 * cancellation. Pure: the model, tools, human input, storage and time all come in through ports.
 */
export class Runtime {
  private onEvent: AgentEventHandler = () => undefined;
  private readonly steering: string[] = [];
  private readonly registry: ToolRegistry;
  private readonly clock: Clock;
  /** Lives as long as the runtime: a job started in one turn may finish in a later one. */
  private readonly jobs = new BackgroundJobs();

  constructor(private readonly options: RuntimeOptions) {
    const children = options.subagents
      ? subagentTools(
          this.jobs,
          () => new Runtime({ ...options, subagents: false, human: { mode: 'turn-ending' }, checkpoints: undefined }),
        )
      : [];
    this.registry = new ToolRegistry([
      ...CONTROL_TOOLS,
      ...humanTools(options.human, options.humanTools),
      ...children,
      ...options.tools,
    ]);
    this.clock = options.clock ?? systemClock;
  }

  setEventHandler(handler: AgentEventHandler): void {
    this.onEvent = handler;
  }

  /** Input that arrives while the agent works: applied at the next safe boundary. */
  steer(text: string): void {
    this.steering.push(text);
    this.jobs.interrupt();
  }

  async run(input: RunInput): Promise<RunResult> {
    const signal = input.signal ?? new AbortController().signal;
    const state = input.resume ? recoverCheckpoint(input.resume) : emptyCheckpoint();
    // Whether this call starts a turn with the person's message (the first of a chat, or the next one of a
    // REPL or `run --session`), rather than answering a parked question or carrying on an interrupted turn.
    let newTurn = false;
    if (state.pendingQuestion) {
      const question = state.pendingQuestion;
      const answer: HumanAnswer =
        input.answer ?? (typeof input.message === 'string' ? { kind: 'answer', text: input.message } : { kind: 'resumed' });
      const outcome = answerToResult(question, answer);
      state.history.push({ role: 'tool', toolCallId: question.callId, content: outcome.content });
      state.pendingQuestion = null;
      if (outcome.directive?.kind === 'blocked')
        return this.finish(state, blocked(state, outcome.directive.reason, 'human_declined'));
    } else if (input.message !== undefined) {
      // A new user turn: the round budget is per turn (a parked or cancelled turn keeps counting).
      newTurn = true;
      state.history.push({ role: 'user', content: input.message });
      state.roundsUsed = 0;
      state.lastProgress = '';
    }
    const latestUserText = lastUserText(state.history);
    // Small talk gets no tools, in every turn that starts with it; an answer to a question ("yes") is not small talk.
    const toolsOff = this.options.chatOnly === true || (newTurn && latestUserText !== undefined && isSmallTalk(latestUserText));

    const identical = new IdenticalRoundGuard();
    const noProgress = new NoProgressGuard();
    const interruptWait = () => this.jobs.interrupt();
    signal.addEventListener('abort', interruptWait);
    try {
      for (;;) {
        this.throwIfCancelled(signal);
        this.applySteering(state);
        this.applyRevivals(state);
        if (state.roundsUsed >= this.options.limits.roundsTotal) {
          const progress = state.lastProgress ? ` Progress so far: ${state.lastProgress}` : '';
          const reason = `stopped after ${state.roundsUsed} rounds: the total budget of ${this.options.limits.roundsTotal} rounds is used up.${progress}`;
          return this.finish(state, blocked(state, reason, 'total_budget'));
        }
        const round = state.roundsUsed + 1;
        const chunk = Math.floor((round - 1) / this.options.limits.roundsPerChunk) + 1;
        this.emit({ type: 'turn_started', round, chunk });

        const response = await this.askModel(state, round, toolsOff, signal);
        state.roundsUsed = round;
        if (!response) return this.finish(state, blocked(state, 'the model kept answering with nothing', 'empty_responses'));
        this.emit({ type: 'model_response', round, text: response.text, toolCalls: response.toolCalls });

        if (response.toolCalls.length === 0) {
          state.history.push({ role: 'assistant', content: response.text });
          if (this.jobs.pending() && !toolsOff) {
            // The model yielded while work still runs (or finished unseen): wait, then revive the model.
            await this.waitForBackground(signal);
            continue;
          }
          const open = planHasOpenSteps(state.plan);
          if (!open || toolsOff)
            return this.finish(state, { status: 'done', summary: response.text.trim(), roundsUsed: state.roundsUsed });
          // Plain text may not end the turn while plan steps are open: say so, and count it as commentary.
          state.history.push({ role: 'user', content: openPlanReminder(state.plan) });
          if (noProgress.observe(false) >= NO_PROGRESS_STOP_AT)
            return this.finish(state, blocked(state, noProgressReason(), 'no_progress'));
          this.progressBeat(state, round);
          continue;
        }

        state.history.push({ role: 'assistant', content: response.text || null, toolCalls: response.toolCalls });
        const executed = await this.executeBatch(state, response.toolCalls, signal);
        const planBefore = state.plan;
        const verdict = this.applyDirectives(state, executed);
        if (verdict) return this.finish(state, verdict);
        // A new plan is saved at once: whoever shows the checklist reads it from the checkpoint, and the
        // next save would only come after another model round.
        if (state.plan !== planBefore) await this.save(state);

        const madeProgress = executed.some((e) => !e.invalid && this.registry.get(e.call.name)?.kind !== 'control');
        const streak = identical.observe({
          calls: response.toolCalls,
          results: executed.map((e) => contentText(e.outcome.content)),
          controlledWait: executed.some((e) => e.outcome.controlledWait),
        });
        if (streak >= IDENTICAL_STOP_AT) {
          return this.finish(
            state,
            blocked(state, `the same action gave the same result ${streak} times in a row`, 'identical_rounds'),
          );
        }
        if (streak === IDENTICAL_REMIND_AT) state.history.push({ role: 'user', content: IDENTICAL_REMINDER });
        if (noProgress.observe(madeProgress) >= NO_PROGRESS_STOP_AT)
          return this.finish(state, blocked(state, noProgressReason(), 'no_progress'));
        this.progressBeat(state, round);
      }
    } catch (error) {
      if (error instanceof Cancelled) return this.finish(state, { status: 'cancelled', roundsUsed: state.roundsUsed });
      if (error instanceof ModelCallFailed)
        return this.finish(state, blocked(state, `model error: ${error.message}`, 'model_error'));
      throw error;
    }
  }

  // --- one model round ------------------------------------------------------------------------

  /** Asks the model, retrying empty answers; undefined when every attempt came back empty. */
  private async askModel(
    state: Checkpoint,
    round: number,
    toolsOff: boolean,
    signal: AbortSignal,
  ): Promise<ModelResponse | undefined> {
    const tools = toolsOff ? [] : this.registry.specs();
    for (let attempt = 1; attempt <= EMPTY_RESPONSE_RETRIES + 1; attempt++) {
      this.throwIfCancelled(signal);
      const messages: ChatMessage[] = [
        { role: 'system', content: this.options.systemPrompt },
        ...trimForRequest(state.history, { maxChars: 400_000, ...this.options.trim }),
      ];
      this.emit({ type: 'status', status: 'thinking' });
      this.emit({ type: 'model_request', round, messages: messages.length, tools: tools.length, attempt });
      const response = await this.awaiting('model', () =>
        this.options.model
          .complete({ messages, ...(tools.length > 0 ? { tools, toolChoice: 'auto' as const } : {}), signal }, (delta) =>
            this.emit({ type: 'model_delta', delta }),
          )
          .catch((error: unknown) => {
            if (signal.aborted) throw new Cancelled();
            throw new ModelCallFailed((error as Error).message ?? String(error));
          }),
      );
      if (response.text.trim() !== '' || response.toolCalls.length > 0) return response;
    }
    return undefined;
  }

  // --- tools ----------------------------------------------------------------------------------

  /**
   * Runs one batch in order: consecutive read-kind calls together, everything else one at a time.
   * A human gate must be alone in its batch; otherwise nothing in the batch runs.
   */
  private async executeBatch(state: Checkpoint, calls: ToolCall[], signal: AbortSignal): Promise<ExecutedCall[]> {
    const loneGate = calls.length > 1 ? calls.find((c) => this.registry.get(c.name)?.alone) : undefined;
    if (loneGate) {
      const executed = calls.map((call) =>
        refused(call, `${loneGate.name} must be called alone in its batch; nothing in this batch was run.`),
      );
      for (const e of executed) this.record(state, e);
      return executed;
    }
    const executed: ExecutedCall[] = [];
    let i = 0;
    while (i < calls.length) {
      if (signal.aborted) {
        for (const call of calls.slice(i)) this.record(state, refused(call, NOT_STARTED, false));
        await this.save(state);
        throw new Cancelled();
      }
      const call = calls[i]!;
      if (this.registry.get(call.name)?.kind === 'read') {
        let end = i;
        while (end < calls.length && this.registry.get(calls[end]!.name)?.kind === 'read') end++;
        const group = calls.slice(i, end);
        const results = await Promise.all(group.map((c) => this.invoke(c, signal)));
        for (const r of results) {
          executed.push(r);
          this.record(state, r);
        }
        await this.save(state);
        i = end;
        continue;
      }
      state.inflight = { callId: call.id, name: call.name, arguments: call.arguments, startedAt: this.clock.now() };
      await this.save(state);
      const result = await this.invoke(call, signal);
      state.inflight = null;
      executed.push(result);
      if (result.outcome.directive?.kind === 'park') {
        // The call's result is the person's answer, recorded when the run resumes.
        state.pendingQuestion = result.outcome.directive.question;
      } else {
        this.record(state, result);
      }
      await this.save(state);
      i++;
    }
    return executed;
  }

  private async invoke(call: ToolCall, signal: AbortSignal): Promise<ExecutedCall> {
    const tool = this.registry.get(call.name);
    this.emit({ type: 'tool_call', call });
    if (!tool) return refused(call, `unknown tool '${call.name}'. Available: ${this.registry.names().join(', ')}`);
    let args: unknown;
    try {
      args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch {
      return refused(call, `the arguments of ${call.name} are not valid JSON: ${call.arguments.slice(0, 200)}`);
    }
    const parsed = tool.schema.safeParse(args);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
      return refused(call, `invalid arguments for ${call.name}: ${issues}`);
    }
    if (tool.kind !== 'control')
      this.emit({ type: 'status', status: tool.kind === 'human' ? 'waiting_for_human' : 'acting', detail: call.name });
    try {
      const outcome = await this.awaiting(tool.kind === 'human' ? 'human' : `tool ${call.name}`, () =>
        tool.execute(parsed.data, {
          signal,
          callId: call.id,
          background: (description, work) => {
            const id = this.jobs.start('command', description, work);
            this.emit({ type: 'background', jobId: id, kind: 'command', description, status: 'started' });
            return id;
          },
        }),
      );
      return { call, outcome, invalid: false };
    } catch (error) {
      if (signal.aborted) throw new Cancelled();
      return { call, outcome: { content: `${call.name} failed: ${(error as Error).message}`, isError: true }, invalid: false };
    }
  }

  /** Appends a call's result to the history (every call keeps its paired result). */
  private record(state: Checkpoint, executed: ExecutedCall): void {
    state.history.push({ role: 'tool', toolCallId: executed.call.id, content: executed.outcome.content });
    if (executed.outcome.state) Object.assign(state.toolState, executed.outcome.state);
    this.emit({
      type: 'tool_result',
      callId: executed.call.id,
      name: executed.call.name,
      isError: executed.outcome.isError === true,
      preview: contentText(executed.outcome.content).slice(0, 500),
    });
  }

  /** Applies control directives in call order; returns how the run ends, if it does. */
  private applyDirectives(state: Checkpoint, executed: ExecutedCall[]): RunOutcome | undefined {
    for (const { call, outcome } of executed) {
      const directive: LoopDirective | undefined = outcome.directive;
      if (!directive) continue;
      switch (directive.kind) {
        case 'say':
          state.lastProgress = directive.text;
          this.emit({ type: 'message', text: directive.text, progress: directive.progress });
          break;
        case 'plan':
          if (isRevision(state.plan, directive.steps) && !directive.reason) {
            // Refused: the model must explain a revision. Replace the optimistic result.
            const index = state.history.findIndex((m) => m.role === 'tool' && m.toolCallId === call.id);
            if (index >= 0) {
              state.history[index] = {
                role: 'tool',
                toolCallId: call.id,
                content: 'refused: this drops or renames steps of the current plan; call update_plan again with a reason.',
              };
            }
            const entry = executed.find((e) => e.call.id === call.id);
            if (entry) entry.invalid = true;
            break;
          }
          state.plan = directive.steps;
          this.emit({ type: 'plan', steps: directive.steps, ...(directive.reason ? { reason: directive.reason } : {}) });
          break;
        case 'done':
          return { status: 'done', summary: directive.summary, roundsUsed: state.roundsUsed };
        case 'blocked':
          return blocked(state, directive.reason, call.name === 'report_blocked' ? 'reported' : 'human_declined');
        case 'park':
          this.emit({ type: 'question', question: directive.question });
          return {
            status: directive.question.kind === 'takeover' ? 'waiting_takeover' : 'waiting_input',
            question: directive.question,
            roundsUsed: state.roundsUsed,
          };
      }
    }
    return undefined;
  }

  // --- plumbing -------------------------------------------------------------------------------

  private applySteering(state: Checkpoint): void {
    while (this.steering.length > 0) {
      const text = this.steering.shift()!;
      state.history.push({ role: 'user', content: text });
      this.emit({ type: 'steering', text });
    }
  }

  /** Tells the model about background jobs that finished since the last boundary. */
  private applyRevivals(state: Checkpoint): void {
    for (const job of this.jobs.takeFinished()) {
      state.history.push({ role: 'user', content: revivalMessage(job) });
      this.emit({ type: 'background', jobId: job.id, kind: job.kind, description: job.description, status: 'finished' });
    }
  }

  /** Waits until a background job finishes, the user steers, or the run is cancelled. */
  private async waitForBackground(signal: AbortSignal): Promise<void> {
    if (this.steering.length > 0 || signal.aborted || this.jobs.running().length === 0) return;
    const names = this.jobs
      .running()
      .map((j) => `${j.id} (${j.description})`)
      .join(', ');
    this.emit({ type: 'status', status: 'waiting_for_background', detail: names });
    await this.awaiting(`background ${names}`, () => this.jobs.waitForChange());
    this.throwIfCancelled(signal);
  }

  /** A progress beat at the end of every chunk of rounds: no model call, just the latest progress. */
  private progressBeat(state: Checkpoint, round: number): void {
    const { roundsPerChunk, roundsTotal } = this.options.limits;
    if (round % roundsPerChunk !== 0) return;
    const summary = state.lastProgress || planSummary(state.plan);
    this.emit({ type: 'progress', chunk: round / roundsPerChunk, roundsUsed: round, roundsTotal, summary });
  }

  /** Runs `work`, emitting a heartbeat naming `what` every 20 s until it settles. */
  private async awaiting<T>(what: string, work: () => Promise<T>): Promise<T> {
    const since = this.clock.now();
    const stop = this.clock.every(HEARTBEAT_MS, () =>
      this.emit({ type: 'heartbeat', awaiting: what, sinceMs: this.clock.now() - since }),
    );
    try {
      return await work();
    } finally {
      stop();
    }
  }

  private async finish(state: Checkpoint, outcome: RunOutcome): Promise<RunResult> {
    state.inflight = null;
    await this.save(state);
    this.emit({ type: 'status', status: 'idle' });
    this.emit(outcome.status === 'blocked' ? { type: 'blocked', outcome } : { type: 'done', outcome });
    return { outcome, checkpoint: state };
  }

  private async save(state: Checkpoint): Promise<void> {
    // A copy: the store may keep it while the loop goes on changing its own state.
    await this.options.checkpoints?.save(structuredClone(state));
  }

  private throwIfCancelled(signal: AbortSignal): void {
    if (signal.aborted) throw new Cancelled();
  }

  private emit(event: AgentEvent): void {
    try {
      this.onEvent(event);
    } catch {
      // A failing event handler must not break the run.
    }
  }
}

function refused(call: ToolCall, message: string, invalid = true): ExecutedCall {
  return { call, outcome: { content: message, isError: true }, invalid };
}

function blocked(state: Checkpoint, reason: string, code: BlockedCode): RunOutcome {
  return { status: 'blocked', reason, code, roundsUsed: state.roundsUsed };
}

function contentText(content: string | ContentPart[]): string {
  return typeof content === 'string'
    ? content
    : content.map((p) => (p.type === 'text' ? p.text : `[image ${p.mimeType}]`)).join('\n');
}

function lastUserText(history: readonly ChatMessage[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === 'user') return typeof m.content === 'string' ? m.content : contentText(m.content);
  }
  return undefined;
}

function planSummary(plan: readonly PlanStep[]): string {
  return plan.map((s) => `${s.status === 'done' ? '✓' : s.status === 'active' ? '→' : '·'} ${s.title}`).join('; ');
}

function openPlanReminder(plan: readonly PlanStep[]): string {
  const open = plan.filter((s) => s.status === 'pending' || s.status === 'active').map((s) => s.title);
  return (
    `Your plan still has open steps (${open.join('; ')}). Plain text does not finish the task: continue with tools, ` +
    'update the plan, or call report_done / report_blocked.'
  );
}

function noProgressReason(): string {
  return 'three rounds in a row brought only commentary, plan edits or invalid calls';
}
