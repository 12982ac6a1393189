import type { PendingQuestion } from './loop/directives.js';
import type { Checkpoint } from './loop/checkpoint.js';

// The ports through which the runtime meets the world besides the model (ModelClient, in
// @lazyboy/contracts) and the tools: human input, storage of its state, and time.

/** A person's reply to a human gate. */
export type HumanAnswer =
  | { kind: 'answer'; text: string }
  | { kind: 'approved' }
  | { kind: 'denied'; reason?: string }
  | { kind: 'resumed'; note?: string }
  | { kind: 'aborted'; reason?: string }
  | { kind: 'timeout' };

/**
 * Human input. `blocking` (the CLI): `ask` waits for the person and the loop continues with the answer.
 * `turn-ending` (the service): the run parks in waiting_input / waiting_takeover and the next user
 * message, or the release of a takeover, answers when the run resumes.
 */
export type HumanBroker =
  | { mode: 'blocking'; ask(question: PendingQuestion & { timeoutMs?: number }, signal: AbortSignal): Promise<HumanAnswer> }
  | { mode: 'turn-ending' };

/** Where the runtime keeps its resumable state; called before and after every tool call. */
export interface CheckpointStore {
  save(checkpoint: Checkpoint): Promise<void>;
}

export interface Clock {
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref?.();
    return () => clearInterval(timer);
  },
};
