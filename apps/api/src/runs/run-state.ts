import type { Checkpoint, HumanAnswer, PendingQuestion } from '@lazyboy/agent';

/**
 * What Run.checkpoint holds: the agent's own checkpoint, and the answer waiting to resume a parked run
 * (the next user message for waiting_input, the release for waiting_takeover).
 */
export interface StoredRunState {
  agent: Checkpoint;
  answer?: HumanAnswer;
}

export function readRunState(json: unknown): StoredRunState | null {
  if (!json || typeof json !== 'object') return null;
  const state = json as Partial<StoredRunState>;
  return state.agent && typeof state.agent === 'object' && state.agent.version === 1 ? (state as StoredRunState) : null;
}

export function pendingQuestionOf(json: unknown): PendingQuestion | null {
  return readRunState(json)?.agent.pendingQuestion ?? null;
}

/** Run.result: the text a finished or parked run left for people (its summary, blocked reason or question). */
export interface StoredRunResult {
  text: string;
}
