import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { INTERNAL_SECRET_HEADER, type ApiErrorBody } from '@lazyboy/contracts';
import { FORWARDED_CLIENT_HEADER, signForwardedClient } from '@lazyboy/contracts/node';
import type { ClientAddresses } from './client-address.js';

// The browser talks to one origin: the web server passes `/api/*` and `/socket.io/*` through to the API,
// so the session cookie the API sets is first-party and websockets need no CORS. The API counts sign-ins
// by the browser's address, which only this server knows (client-address.ts): it says so in a header
// signed with the secret the two share (libs/contracts forwarded-client.ts), since the API cannot tell this
// server's connections from any other local process's. X-Forwarded-For carries the same address for
// anything else that reads it; X-Forwarded-Host is the address the browser used.

/** Whether a request is for the API: its routes and its websockets. */
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

function apiUnreachable(res: http.ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body: ApiErrorBody = { error: { code: 'NOT_READY', message: 'the API is not reachable; try again in a moment' } };
  res.writeHead(502, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

export class ApiProxy {
  constructor(
    private readonly api: URL,
    private readonly clients: ClientAddresses,
    /** LAZYBOY_INTERNAL_SECRET: signs the client's address for the API. */
    private readonly internalSecret: string,
  ) {}

  /** Passes one HTTP request through to the API and its answer back, streaming both bodies. */
  request(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (isInternalApiPath(req.url)) {
      const body: ApiErrorBody = { error: { code: 'NOT_FOUND', message: 'no such route' } };
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
      return;
    }
    const { hostname, port } = this.api;
    const upstream = http.request(
      { hostname, port, method: req.method, path: req.url, headers: this.forwardedHeaders(req, false) },
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
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    if (isInternalApiPath(req.url)) {
      socket.destroy();
      return;
    }
    const upstream = net.connect(Number(this.api.port || 80), this.api.hostname, () => {
      const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
      for (const [name, value] of Object.entries(this.forwardedHeaders(req, true))) {
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

  /** Request headers for the API: hop-by-hop ones dropped, the forwarding ones set by us. */
  private forwardedHeaders(req: http.IncomingMessage, keepUpgrade: boolean): http.OutgoingHttpHeaders {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name.startsWith('x-forwarded-') || name === 'forwarded') continue;
      // The web server's own credential and statement for the API: never a browser's to send.
      if (name === INTERNAL_SECRET_HEADER || name === FORWARDED_CLIENT_HEADER) continue;
      if (!keepUpgrade && (name === 'connection' || name === 'upgrade' || name === 'keep-alive')) continue;
      headers[name] = value;
    }
    const client = this.clients.of(req);
    headers[FORWARDED_CLIENT_HEADER] = signForwardedClient(client, this.internalSecret);
    headers['x-forwarded-for'] = client;
    headers['x-forwarded-proto'] = 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
    const host = this.clients.hostOf(req);
    if (host) headers['x-forwarded-host'] = host;
    return headers;
  }
}
