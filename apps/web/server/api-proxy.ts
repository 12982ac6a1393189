import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { INTERNAL_SECRET_HEADER, type ApiErrorBody } from '@lazyboy/contracts';

/**
 * The browser talks to one origin: the web server passes `/api/*` and `/socket.io/*` through to the API,
 * so the session cookie the API sets is first-party and websockets need no CORS. The API trusts a
 * loopback proxy's X-Forwarded-For, so this proxy sets it to the caller's address (see clientAddress: never
 * one a remote caller sent, which would let anyone pick the address the rate limits count). X-Forwarded-Host is the
 * one a proxy in front named, else the Host: the address the browser used, which the API compares pages'
 * Origin with when the browser sends no Sec-Fetch-Site.
 */
export function isApiPath(url: string | undefined): boolean {
  return url !== undefined && /^\/(api|socket\.io)(\/|\?|$)/.test(url);
}

/**
 * API routes for the web server itself, never for browsers: redeeming a viewer ticket answers with the
 * screen's raw VNC address, which only this server's filtered /view proxy may use.
 */
function isInternalApiPath(url: string | undefined): boolean {
  // Express matches routes case-insensitively: so must this.
  return url !== undefined && /^\/api\/viewer(\/|\?|$)/i.test(url);
}

/** Request headers for the API: hop-by-hop ones dropped, the forwarding ones set by us. */
function forwardedHeaders(req: http.IncomingMessage, keepUpgrade: boolean): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith('x-forwarded-') || name === 'forwarded') continue;
    // The web server's own credential for the API: never a browser's to send.
    if (name === INTERNAL_SECRET_HEADER) continue;
    if (!keepUpgrade && (name === 'connection' || name === 'upgrade' || name === 'keep-alive')) continue;
    headers[name] = value;
  }
  headers['x-forwarded-for'] = clientAddress(req);
  headers['x-forwarded-proto'] = 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
  // The address the browser used: a proxy in front of this server may have named it already (its Host is
  // then often its own upstream name). The API compares pages' Origin with it; a page cannot forge it.
  const host = req.headers['x-forwarded-host'] ?? req.headers.host;
  if (host) headers['x-forwarded-host'] = host;
  return headers;
}

/**
 * The browser's address: the caller's own, unless the caller is a reverse proxy on this machine (for HTTPS),
 * whose X-Forwarded-For names the browser last. Nobody else may pick the address the rate limits count.
 */
export function clientAddress(req: Pick<http.IncomingMessage, 'headers' | 'socket'>): string {
  const peer = req.socket.remoteAddress ?? '';
  if (!isLoopback(peer)) return peer;
  const forwarded = req.headers['x-forwarded-for'];
  const named = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').at(-1)?.trim() ?? '';
  return net.isIP(named) ? named : peer;
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

function apiUnreachable(res: http.ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body: ApiErrorBody = { error: { code: 'NOT_READY', message: 'the API is not reachable; try again in a moment' } };
  res.writeHead(502, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** Passes one HTTP request through to the API and its answer back, streaming both bodies. */
export function proxyRequest(api: URL, req: http.IncomingMessage, res: http.ServerResponse): void {
  if (isInternalApiPath(req.url)) {
    const body: ApiErrorBody = { error: { code: 'NOT_FOUND', message: 'no such route' } };
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
    return;
  }
  const upstream = http.request(
    { hostname: api.hostname, port: api.port, method: req.method, path: req.url, headers: forwardedHeaders(req, false) },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    },
  );
  upstream.on('error', () => apiUnreachable(res));
  req.on('aborted', () => upstream.destroy());
  req.pipe(upstream);
}

/** Passes a websocket upgrade (socket.io) through: the handshake as received, then bytes both ways. */
export function proxyUpgrade(api: URL, req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
  if (isInternalApiPath(req.url)) {
    socket.destroy();
    return;
  }
  const upstream = net.connect(Number(api.port || 80), api.hostname, () => {
    const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
    for (const [name, value] of Object.entries(forwardedHeaders(req, true))) {
      for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(one)}`);
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  const close = () => {
    upstream.destroy();
    socket.destroy();
  };
  upstream.on('error', close);
  socket.on('error', close);
  upstream.on('close', () => socket.destroy());
  socket.on('close', () => upstream.destroy());
}
