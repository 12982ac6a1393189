import type { ToolCall } from '@lazyboy/contracts';

/** Consecutive identical rounds: a reminder at `remindAt`, a stop at `stopAt`. */
export const IDENTICAL_REMIND_AT = 2;
export const IDENTICAL_STOP_AT = 3;
/** Consecutive rounds with nothing but commentary, plan edits or invalid control calls. */
export const NO_PROGRESS_STOP_AT = 3;
/** Retries of an empty model response before giving up. */
export const EMPTY_RESPONSE_RETRIES = 3;

export const IDENTICAL_REMINDER =
  'You just repeated the same action and got the same result again. Repeating it will not change the outcome: ' +
  'try a different approach, or call report_blocked if you cannot proceed.';

export interface RoundRecord {
  calls: ToolCall[];
  results: string[];
  /** A controlled wait returned: repeats are expected and do not count. */
  controlledWait: boolean;
}

/** Counts consecutive rounds whose actions and results were exactly the same. */
export class IdenticalRoundGuard {
  private lastSignature: string | undefined;
  private streak = 0;

  /** Returns the streak length including this round (1 for a round unlike the previous one). */
  observe(round: RoundRecord): number {
    if (round.controlledWait) {
      this.lastSignature = undefined;
      this.streak = 0;
      return 0;
    }
    const signature = JSON.stringify([round.calls.map((c) => [c.name, canonicalArguments(c.arguments)]), round.results]);
    this.streak = signature === this.lastSignature ? this.streak + 1 : 1;
    this.lastSignature = signature;
    return this.streak;
  }
}

/** Counts consecutive rounds that moved nothing forward. */
export class NoProgressGuard {
  private streak = 0;

  observe(madeProgress: boolean): number {
    this.streak = madeProgress ? 0 : this.streak + 1;
    return this.streak;
  }
}

/** Key order and whitespace do not make two calls different. */
function canonicalArguments(raw: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(raw)));
  } catch {
    return raw.trim();
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}
