/**
 * Names one VNC websocket to the web server's view proxy (`?c=`), which later switches that connection
 * between watching and driving by this name. 16 random bytes as base64url: 22 characters of
 * [A-Za-z0-9_-], what the proxy accepts. getRandomValues rather than randomUUID: the latter is missing
 * outside secure contexts, and self-hosted instances are often reached over plain http.
 */
export function newViewConnectionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The websocket address of a viewer ticket's path, on this page's own host. */
export function viewSocketUrl(path: string, connectionId: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}${path}?c=${encodeURIComponent(connectionId)}`;
}
