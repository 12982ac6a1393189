import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { trustedProxiesSchema } from '@lazyboy/contracts';
import { FORWARDED_CLIENT_HEADER, TrustedProxies, verifyForwardedClient } from '@lazyboy/contracts/node';
import { ApiProxy, isApiPath } from './api-proxy.js';
import { ClientAddresses } from './client-address.js';

// The web server's pass-through to the API, between real sockets: a stand-in API that echoes what it got,
// and the proxy in front of it as the web server mounts it.

const SECRET = 'web-test-internal-secret-0123456789abcdef';

function clientAddresses(list: string): ClientAddresses {
  return new ClientAddresses(new TrustedProxies(trustedProxiesSchema.parse(list)));
}

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

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
  const servers: http.Server[] = [];
  /** The web server as `lazyboy up` starts it: no proxy listed, so every caller is counted by its own address. */
  let webUrl: URL;
  /** One that lists this machine's reverse proxy (loopback) in LAZYBOY_TRUSTED_PROXIES. */
  let behindProxyUrl: URL;

  async function webServer(proxy: ApiProxy): Promise<URL> {
    const web = http.createServer((req, res) => {
      if (isApiPath(req.url)) return proxy.request(req, res);
      res.writeHead(200).end('a page');
    });
    web.on('upgrade', (req, socket, head) => {
      upgraded.push(socket);
      if (isApiPath(req.url)) proxy.upgrade(req, socket, head);
      else socket.destroy();
    });
    servers.push(web);
    return listen(web);
  }

  beforeAll(async () => {
    apiUrl = await listen(api);
    servers.push(api);
    webUrl = await webServer(new ApiProxy(apiUrl, clientAddresses(''), SECRET));
    behindProxyUrl = await webServer(new ApiProxy(apiUrl, clientAddresses('127.0.0.1, ::1'), SECRET));
  });

  afterAll(async () => {
    for (const socket of upgraded) socket.destroy();
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise((r) => server.close(r))));
  });

  const seenThrough = async (base: URL, headers: Record<string, string>): Promise<Seen> =>
    (await (await fetch(new URL('/api/auth/me', base), { headers })).json()) as Seen;

  it('believes X-Forwarded-For only from a listed proxy, read from the right: a forged left end never wins', () => {
    const from = (list: string, remoteAddress: string, forwarded?: string) =>
      clientAddresses(list).of({
        socket: { remoteAddress } as net.Socket,
        headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
      });
    // Nobody listed (the default): the peer, loopback included (the agents' browsers are loopback peers).
    expect(from('', '198.51.100.4', '203.0.113.9')).toBe('198.51.100.4');
    expect(from('', '127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
    expect(from('', '::ffff:127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
    // A peer that is not listed, with a list.
    expect(from('10.0.0.0/8', '198.51.100.4', '203.0.113.9')).toBe('198.51.100.4');
    // A listed peer: the rightmost address that is not a listed proxy.
    expect(from('127.0.0.1', '127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(from('127.0.0.1', '::ffff:127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(from('127.0.0.1, 10.0.0.0/8', '127.0.0.1', '198.51.100.1, 203.0.113.9, 10.1.2.3')).toBe('203.0.113.9');
    expect(from('::1', '::1', 'spoofed, 2001:db8::7')).toBe('2001:db8::7');
    expect(from('127.0.0.1, 10.0.0.0/8', '127.0.0.1', '10.9.9.9, 10.1.2.3')).toBe('10.9.9.9');
    // Nothing, or garbage, named: the last proxy believed.
    expect(from('127.0.0.1', '127.0.0.1')).toBe('127.0.0.1');
    expect(from('127.0.0.1', '127.0.0.1', 'not an address')).toBe('127.0.0.1');
    expect(from('127.0.0.1, 10.0.0.0/8', '127.0.0.1', '203.0.113.9, junk, 10.1.2.3')).toBe('10.1.2.3');
  });

  it("tells the API who the browser is in a statement it signs, and never passes on a browser's own", async () => {
    const forged = '203.0.113.66;1;' + 'A'.repeat(43);
    const direct = await seenThrough(webUrl, { 'x-forwarded-for': '203.0.113.9', [FORWARDED_CLIENT_HEADER]: forged });
    expect(direct.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(direct.headers[FORWARDED_CLIENT_HEADER]).not.toBe(forged);
    expect(verifyForwardedClient(direct.headers[FORWARDED_CLIENT_HEADER], SECRET)).toBe('127.0.0.1');
    expect(verifyForwardedClient(direct.headers[FORWARDED_CLIENT_HEADER], `${SECRET}x`)).toBeNull();

    const proxied = await seenThrough(behindProxyUrl, { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' });
    expect(proxied.headers['x-forwarded-for']).toBe('203.0.113.9');
    expect(verifyForwardedClient(proxied.headers[FORWARDED_CLIENT_HEADER], SECRET)).toBe('203.0.113.9');
  });

  it('knows which paths are the API', () => {
    expect(['/api/auth/me', '/api', '/socket.io/?EIO=4', '/api?x=1'].map(isApiPath)).toEqual([true, true, true, true]);
    expect(['/', '/agents/1', '/apiary', '/view/x', undefined].map(isApiPath)).toEqual([false, false, false, false, false]);
  });

  it("passes a request with its body and cookies through, and the answer back, with a listed proxy's client as X-Forwarded-For", async () => {
    const res = await fetch(new URL('/api/chats/1/messages?x=1', behindProxyUrl), {
      method: 'POST',
      // From loopback: a reverse proxy on this machine, which names the browser last.
      headers: { 'content-type': 'application/json', cookie: 'lazyboy_session=abc', 'x-forwarded-for': '10.9.9.9, 203.0.113.9' },
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toBe('lazyboy_session=abc; HttpOnly');
    const seen = (await res.json()) as Seen;
    expect(seen).toMatchObject({ method: 'POST', url: '/api/chats/1/messages?x=1', body: '{"text":"hello"}' });
    expect(seen.headers).toMatchObject({
      cookie: 'lazyboy_session=abc',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-host': behindProxyUrl.host,
    });
  });

  it('keeps the address a listed proxy in front named (X-Forwarded-Host), and only its', async () => {
    const headers = { 'x-forwarded-host': 'lazyboy.example.org' };
    expect((await seenThrough(behindProxyUrl, headers)).headers['x-forwarded-host']).toBe('lazyboy.example.org');
    expect((await seenThrough(webUrl, headers)).headers['x-forwarded-host']).toBe(webUrl.host);
  });

  it('upgrades a websocket through to the API and carries its bytes both ways', async () => {
    const socket = net.connect(Number(behindProxyUrl.port), '127.0.0.1');
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
    const unreachable = new ApiProxy(new URL('http://127.0.0.1:1'), clientAddresses(''), SECRET);
    const down = http.createServer((req, res) => unreachable.request(req, res));
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
