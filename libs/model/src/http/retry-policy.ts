export interface RetryPolicy {
  /** Retries after the first attempt (so at most maxRetries + 1 requests). */
  maxRetries: number;
  /** Backoff before the first retry; doubled for each further one. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A provider's Retry-After is honoured up to this long, so one header cannot park a run for an hour. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Exponential backoff with "equal jitter": half the step is fixed so retries keep spacing out, half is
 * random so many runs hitting the same rate limit do not come back in lockstep.
 */
export function backoffDelayMs(policy: RetryPolicy, retryIndex: number, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * How long the provider asked us to wait, from `retry-after-ms` (OpenAI's precise variant) or
 * `Retry-After` (seconds or an HTTP date). Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const precise = headers.get('retry-after-ms');
  if (precise !== null && precise.trim() !== '') {
    const ms = Number(precise);
    if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  }
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
