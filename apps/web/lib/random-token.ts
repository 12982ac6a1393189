/**
 * `bytes` random bytes as base64url ([A-Za-z0-9_-]). getRandomValues rather than crypto.randomUUID: the
 * latter is missing outside secure contexts, and self-hosted instances are often reached over plain http.
 */
export function randomToken(bytes: number): string {
  let binary = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(bytes))) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
