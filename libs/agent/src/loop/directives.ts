import type { PlanStep } from './plan.js';

/** A question the run waits on (a human gate), kept in the checkpoint while parked. */
export interface PendingQuestion {
  callId: string;
  tool: string;
  kind: 'input' | 'confirm' | 'handoff' | 'takeover';
  prompt: string;
  /** For confirmations: the exact text or action awaiting approval. */
  draft?: string;
}

/**
 * What a control or human tool asks of the loop besides its result text. Ordinary tools return none.
 */
export type LoopDirective =
  | { kind: 'done'; summary: string }
  | { kind: 'blocked'; reason: string }
  | { kind: 'say'; text: string; progress: boolean }
  | { kind: 'plan'; steps: PlanStep[]; reason?: string }
  | { kind: 'park'; question: PendingQuestion };
