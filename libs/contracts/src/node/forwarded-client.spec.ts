import { describe, expect, it } from '@jest/globals';
import { FORWARDED_CLIENT_MAX_SKEW_MS, signForwardedClient, verifyForwardedClient } from './forwarded-client.js';

const SECRET = 'forwarded-client-secret-0123456789abcdef';

describe("the web server's signed statement of the client's address", () => {
  it('names the address it was signed for, while fresh', () => {
    const now = 1_800_000_000_000;
    expect(verifyForwardedClient(signForwardedClient('203.0.113.9', SECRET, now), SECRET, now)).toBe('203.0.113.9');
    expect(verifyForwardedClient(signForwardedClient('2001:db8::7', SECRET, now), SECRET, now + 5_000)).toBe('2001:db8::7');
    // Clocks a little apart either way.
    const skew = FORWARDED_CLIENT_MAX_SKEW_MS;
    expect(verifyForwardedClient(signForwardedClient('203.0.113.9', SECRET, now), SECRET, now - skew)).toBe('203.0.113.9');
    expect(verifyForwardedClient(signForwardedClient('203.0.113.9', SECRET, now), SECRET, now + skew)).toBe('203.0.113.9');
  });

  it('believes nothing stale, altered, signed with another secret, or malformed', () => {
    const now = 1_800_000_000_000;
    const good = signForwardedClient('203.0.113.9', SECRET, now);
    const [, issuedAt, mac] = good.split(';') as [string, string, string];
    const refused = [
      signForwardedClient('203.0.113.9', SECRET, now - FORWARDED_CLIENT_MAX_SKEW_MS - 1),
      signForwardedClient('203.0.113.9', SECRET, now + FORWARDED_CLIENT_MAX_SKEW_MS + 1),
      signForwardedClient('203.0.113.9', `${SECRET}x`, now),
      `198.51.100.1;${issuedAt};${mac}`,
      `203.0.113.9;${now + 1};${mac}`,
      `203.0.113.9;${issuedAt};${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      `not-an-ip;${issuedAt};${mac}`,
      `203.0.113.9;${issuedAt}`,
      `${good};extra`,
      `${good}, ${good}`,
      '',
      'x'.repeat(10_000),
    ];
    for (const value of refused) expect(verifyForwardedClient(value, SECRET, now)).toBeNull();
    expect(verifyForwardedClient(undefined, SECRET, now)).toBeNull();
    expect(verifyForwardedClient([good, good], SECRET, now)).toBeNull();
  });
});
