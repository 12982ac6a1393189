/**
 * A fresh clientNonce for one chat message (the API accepts [A-Za-z0-9._:-], 8–100 characters).
 * crypto.randomUUID exists only in secure contexts, and a self-hosted instance is often reached over plain
 * http on a LAN address; getRandomValues works everywhere.
 */
export function newClientNonce(): string {
  if (typeof crypto.randomUUID === 'function' && globalThis.isSecureContext) return `web-${crypto.randomUUID()}`;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
