// The live picture of a screen: the worker serves x11vnc's Unix socket as a WebSocket (binary RFB) at
// screenVncPath(slot) (worker-routes.ts). Only the web server's /view proxy opens it, with a view grant the API signed for
// one screen: HMAC-SHA256 keyed with the computer's control token, so the web server never holds that token
// and a grant opens nothing but the one screen, once, for a minute. Web Crypto, not node:crypto: this
// package is also bundled for the browser.

export const VIEW_GRANT_TTL_MS = 60_000;
const GRANT = /^v1\.(\d{1,2})\.(\d{13})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export interface ViewGrantClaims {
  computerId: string;
  slot: number;
  /** Epoch milliseconds. */
  expiresAt: number;
  nonce: string;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function mac(key: string, claims: ViewGrantClaims): Promise<string> {
  const encoder = new TextEncoder();
  const cryptoKey = await crypto.subtle.importKey('raw', encoder.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const payload = `lazyboy-view:${claims.computerId}:${claims.slot}:${claims.expiresAt}:${claims.nonce}`;
  return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, encoder.encode(payload))));
}

/** A grant for one screen of one computer; `key` is that computer's control token. */
export async function signViewGrant(key: string, computerId: string, slot: number, now = Date.now()): Promise<string> {
  const claims: ViewGrantClaims = {
    computerId,
    slot,
    expiresAt: now + VIEW_GRANT_TTL_MS,
    nonce: base64url(crypto.getRandomValues(new Uint8Array(16))),
  };
  return `v1.${slot}.${claims.expiresAt}.${claims.nonce}.${await mac(key, claims)}`;
}

/**
 * The grant's claims when it is well-formed, signed with `key` for this computer and slot, and not expired;
 * otherwise undefined. Single use is the verifier's to enforce (remember the nonce until it expires).
 */
export async function verifyViewGrant(
  key: string,
  computerId: string,
  slot: number,
  grant: string,
  now = Date.now(),
): Promise<ViewGrantClaims | undefined> {
  const match = GRANT.exec(grant);
  if (!match) return undefined;
  const claims: ViewGrantClaims = { computerId, slot: Number(match[1]), expiresAt: Number(match[2]), nonce: match[3]! };
  if (claims.slot !== slot || claims.expiresAt < now || claims.expiresAt > now + VIEW_GRANT_TTL_MS) return undefined;
  const expected = await mac(key, claims);
  // Both are 43 base64url characters; compare without an early exit.
  let difference = 0;
  for (let i = 0; i < expected.length; i++) difference |= expected.charCodeAt(i) ^ (match[4]!.charCodeAt(i) || 0);
  return difference === 0 ? claims : undefined;
}
