import type { RunKind } from '@lazyboy/contracts';

export interface RoundLimits {
  /** Rounds per chunk: a progress beat after each chunk (no extra model call). */
  roundsPerChunk: number;
  /** Absolute ceiling of model rounds in one run; reaching it ends the run as blocked. */
  roundsTotal: number;
}

/** The service's per-kind ceilings; the CLI passes its own (LAZYBOY_MAX_ROUNDS / _TOTAL). */
export const SERVICE_LIMITS: Record<RunKind, RoundLimits> = {
  chat: { roundsPerChunk: 4, roundsTotal: 4 },
  general: { roundsPerChunk: 12, roundsTotal: 40 },
  skill: { roundsPerChunk: 12, roundsTotal: 80 },
};
