import { describe, expect, it } from '@jest/globals';
import { backoffDelayMs, DEFAULT_RETRY_POLICY, parseRetryAfterMs } from './retry-policy.js';

describe('retry policy', () => {
  it('doubles the backoff per retry, jittered within the upper half, up to the maximum', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect([0, 1, 2, 3, 4].map((retry) => backoffDelayMs(policy, retry, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([0, 1, 2, 3, 4].map((retry) => backoffDelayMs(policy, retry, () => 1))).toEqual([100, 200, 400, 800, 1_000]);
  });

  it('reads Retry-After as seconds or as a date, and retry-after-ms first', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '3' }), now)).toBe(3_000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '0.25' }), now)).toBe(250);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'Tue, 01 Jan 2030 00:00:10 GMT' }), now)).toBe(10_000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '3', 'retry-after-ms': '1500' }), now)).toBe(1_500);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfterMs(new Headers(), now)).toBeUndefined();
  });
});
