import { randomToken } from './random-token';

/**
 * Names one VNC websocket to the web server's view proxy (`?c=`), which later switches that connection
 * between watching and driving by this name: 22 characters of [A-Za-z0-9_-], what the proxy accepts.
 */
export function newViewConnectionId(): string {
  return randomToken(16);
}

/** The websocket address of a viewer ticket's path, on this page's own host. */
export function viewSocketUrl(path: string, connectionId: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}${path}?c=${encodeURIComponent(connectionId)}`;
}
