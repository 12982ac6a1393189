import { createHmac, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

// The web server tells the API who the browser is. The API cannot tell the web server's connections from
// those of any other process on the machine (an agent's browser, a shell), so the statement is signed with
// the secret the two already share (LAZYBOY_INTERNAL_SECRET) and carries when it was made: the secret
// itself never travels, a browser never sees the header (the web server drops any copy a browser sends) and
// a captured one is only good for a minute.

/** The web server's signed statement of the client's address, on every request it passes to the API. */
export const FORWARDED_CLIENT_HEADER = 'x-lazyboy-client';

/** A statement is believed this long after (or, for clocks apart, before) it was made. */
export const FORWARDED_CLIENT_MAX_SKEW_MS = 60_000;

const MAC = /^[A-Za-z0-9_-]{43}$/;
const ISSUED_AT = /^\d{1,15}$/;

/** `<address>;<unix ms>;<HMAC-SHA256, base64url>`. */
export function signForwardedClient(address: string, secret: string, now = Date.now()): string {
  return `${address};${now};${mac(address, now, secret)}`;
}

/** The address a statement names, or null when it is malformed, signed with another secret, or stale. */
export function verifyForwardedClient(value: string | string[] | undefined, secret: string, now = Date.now()): string | null {
  if (typeof value !== 'string' || value.length > 128) return null;
  const parts = value.split(';');
  if (parts.length !== 3) return null;
  const [address = '', issuedAt = '', given = ''] = parts;
  if (isIP(address) === 0 || !ISSUED_AT.test(issuedAt) || !MAC.test(given)) return null;
  const at = Number(issuedAt);
  if (Math.abs(now - at) > FORWARDED_CLIENT_MAX_SKEW_MS) return null;
  const expected = Buffer.from(mac(address, at, secret), 'base64url');
  const received = Buffer.from(given, 'base64url');
  return received.length === expected.length && timingSafeEqual(received, expected) ? address : null;
}

function mac(address: string, at: number, secret: string): string {
  // Labelled: a MAC of this secret made for anything else can never pass for one of these.
  return createHmac('sha256', secret).update(`lazyboy:forwarded-client\n${address}\n${at}`).digest('base64url');
}
