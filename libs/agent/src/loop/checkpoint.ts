import type { ChatMessage } from '@lazyboy/contracts';
import type { PendingQuestion } from './directives.js';
import type { PlanStep } from './plan.js';

/** A tool call that started and has no recorded outcome yet. */
export interface InflightCall {
  callId: string;
  name: string;
  arguments: string;
  startedAt: number;
}

/** Everything needed to resume a run: saved before and after every tool call. */
export interface Checkpoint {
  version: 1;
  /** The conversation without the system prompt (which comes from configuration). */
  history: ChatMessage[];
  plan: PlanStep[];
  pendingQuestion: PendingQuestion | null;
  inflight: InflightCall | null;
  /** Facts tools reported (browser URL, running commands), merged by key. */
  toolState: Record<string, unknown>;
  /** Model rounds of the current user turn (the budget counts these). */
  roundsUsed: number;
  /** The latest progress text (report_progress / send_message), for progress beats and budget notes. */
  lastProgress: string;
}

export function emptyCheckpoint(): Checkpoint {
  return {
    version: 1,
    history: [],
    plan: [],
    pendingQuestion: null,
    inflight: null,
    toolState: {},
    roundsUsed: 0,
    lastProgress: '',
  };
}

export const UNKNOWN_OUTCOME = (name: string) =>
  `outcome unknown: the ${name} call was interrupted before its result was recorded. It was NOT run again. ` +
  'Check the current state before deciding whether to repeat it.';
export const NOT_STARTED = 'not run: the run stopped before this call started.';

/**
 * Makes a checkpoint taken mid-batch safe to continue: the interrupted call gets an explicit unknown
 * outcome (never a replay) and calls that never started say so, so every call keeps a paired result.
 */
export function recoverCheckpoint(checkpoint: Checkpoint): Checkpoint {
  const history = [...checkpoint.history];
  const answered = new Set(history.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  const lastAssistant = [...history].reverse().find((m) => m.role === 'assistant');
  const missing = lastAssistant?.role === 'assistant' ? (lastAssistant.toolCalls ?? []).filter((c) => !answered.has(c.id)) : [];
  for (const call of missing) {
    if (checkpoint.pendingQuestion?.callId === call.id) continue; // answered when the run resumes
    const content = checkpoint.inflight?.callId === call.id ? UNKNOWN_OUTCOME(call.name) : NOT_STARTED;
    history.push({ role: 'tool', toolCallId: call.id, content });
  }
  return { ...checkpoint, history, inflight: null };
}
