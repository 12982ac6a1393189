import type { PendingQuestion } from './directives.js';

/** How a run (one user turn) ended. */
export type RunOutcome =
  /** report_done, or an answer in plain text with nothing left open. */
  | { status: 'done'; summary: string; roundsUsed: number }
  /** report_blocked, a guard, or the total budget: `reason` says which. */
  | { status: 'blocked'; reason: string; code: BlockedCode; roundsUsed: number }
  /** A human gate in turn-ending mode: the next user message (or the release) answers it. */
  | { status: 'waiting_input' | 'waiting_takeover'; question: PendingQuestion; roundsUsed: number }
  /** Stopped through the AbortSignal at a safe boundary; the checkpoint resumes it. */
  | { status: 'cancelled'; roundsUsed: number };

export type BlockedCode =
  'reported' | 'identical_rounds' | 'no_progress' | 'empty_responses' | 'total_budget' | 'human_declined' | 'model_error';
