import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { clientAddress, isApiPath, proxyRequest, proxyUpgrade } from './api-proxy.js';

// The web server's pass-through to the API, between real sockets: a stand-in API that echoes what it got,
// and the proxy in front of it as the web server mounts it.

function listen(server: http.Server): Promise<URL> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
  );
}

describe('the web server passing /api and /socket.io through to the API', () => {
  const api = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json', 'set-cookie': 'lazyboy_session=abc; HttpOnly' });
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }));
    });
  });
  /** Upgraded sockets leave the servers' books: closed by hand at the end. */
  const upgraded: Duplex[] = [];
  // A websocket-style upgrade that answers 101 and then echoes bytes back in upper case.
  api.on('upgrade', (req, socket) => {
    upgraded.push(socket);
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nx-seen-for: ${String(req.headers['x-forwarded-for'])}\r\n\r\n`,
    );
    socket.on('data', (chunk: Buffer) => socket.write(chunk.toString().toUpperCase()));
  });
  let apiUrl: URL;
  let web: http.Server;
  let webUrl: URL;

  beforeAll(async () => {
    apiUrl = await listen(api);
    web = http.createServer((req, res) => {
      if (isApiPath(req.url)) return proxyRequest(apiUrl, req, res);
      res.writeHead(200).end('a page');
    });
    web.on('upgrade', (req, socket, head) => {
      upgraded.push(socket);
      if (isApiPath(req.url)) proxyUpgrade(apiUrl, req, socket, head);
      else socket.destroy();
    });
    webUrl = await listen(web);
  });

  afterAll(async () => {
    for (const socket of upgraded) socket.destroy();
    web.closeAllConnections();
    api.closeAllConnections();
    await Promise.all([new Promise((r) => web.close(r)), new Promise((r) => api.close(r))]);
  });

  it("takes the browser's address from a local reverse proxy only: a remote caller cannot pick its own", () => {
    const from = (remoteAddress: string, forwarded?: string) =>
      clientAddress({ socket: { remoteAddress } as net.Socket, headers: forwarded ? { 'x-forwarded-for': forwarded } : {} });
    expect(from('198.51.100.4', '203.0.113.9')).toBe('198.51.100.4');
    expect(from('127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(from('::1', 'spoofed, 2001:db8::7')).toBe('2001:db8::7');
    expect(from('::ffff:127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(from('127.0.0.1')).toBe('127.0.0.1');
    expect(from('127.0.0.1', 'not an address')).toBe('127.0.0.1');
  });

  it('knows which paths are the API', () => {
    expect(['/api/auth/me', '/api', '/socket.io/?EIO=4', '/api?x=1'].map(isApiPath)).toEqual([true, true, true, true]);
    expect(['/', '/agents/1', '/apiary', '/view/x', undefined].map(isApiPath)).toEqual([false, false, false, false, false]);
  });

  it("passes a request with its body and cookies through, and the answer back, with a local proxy's client as X-Forwarded-For", async () => {
    const res = await fetch(new URL('/api/sessions/1/messages?x=1', webUrl), {
      method: 'POST',
      // From loopback: a reverse proxy on this machine, which names the browser last.
      headers: { 'content-type': 'application/json', cookie: 'lazyboy_session=abc', 'x-forwarded-for': '10.9.9.9, 203.0.113.9' },
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toBe('lazyboy_session=abc; HttpOnly');
    const seen = (await res.json()) as { method: string; url: string; headers: Record<string, string>; body: string };
    expect(seen).toMatchObject({ method: 'POST', url: '/api/sessions/1/messages?x=1', body: '{"text":"hello"}' });
    expect(seen.headers).toMatchObject({
      cookie: 'lazyboy_session=abc',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-host': webUrl.host,
    });
  });

  it('keeps the address a proxy in front named (X-Forwarded-Host), the one pages of the site have as their origin', async () => {
    const res = await fetch(new URL('/api/auth/me', webUrl), { headers: { 'x-forwarded-host': 'lazyboy.example.org' } });
    const seen = (await res.json()) as { headers: Record<string, string> };
    expect(seen.headers['x-forwarded-host']).toBe('lazyboy.example.org');
  });

  it('upgrades a websocket through to the API and carries its bytes both ways', async () => {
    const socket = net.connect(Number(webUrl.port), '127.0.0.1');
    socket.write(
      'GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nhost: web\r\nupgrade: websocket\r\nconnection: Upgrade\r\n' +
        'x-forwarded-for: 203.0.113.9\r\n\r\n',
    );
    let received = '';
    await new Promise<void>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
        if (received.includes('\r\n\r\n') && !received.includes('PING')) socket.write('ping');
        if (received.includes('PING')) resolve();
      });
    });
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 101/);
    expect(received).toContain('x-seen-for: 203.0.113.9');
  });

  it("keeps the API's routes for the web server itself (redeeming viewer tickets) away from browsers", async () => {
    for (const route of ['/api/viewer/redeem', '/api/Viewer/control-check', '/api/VIEWER/redeem?x=1']) {
      const res = await fetch(new URL(route, webUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ticket: 'x'.repeat(40) }),
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no such route' } });
    }
    // Nor does a browser's copy of the web server's own credential reach the API.
    const res = await fetch(new URL('/api/auth/me', webUrl), { headers: { 'x-lazyboy-internal': 'guessed' } });
    const seen = (await res.json()) as { headers: Record<string, string> };
    expect(seen.headers['x-lazyboy-internal']).toBeUndefined();
  });

  it('answers 502 with a JSON error code when the API is down', async () => {
    const down = http.createServer((req, res) => proxyRequest(new URL('http://127.0.0.1:1'), req, res));
    const downUrl = await listen(down);
    try {
      const res = await fetch(new URL('/api/auth/me', downUrl));
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: { code: 'NOT_READY', message: expect.any(String) } });
    } finally {
      down.closeAllConnections();
      await new Promise((r) => down.close(r));
    }
  });
});
