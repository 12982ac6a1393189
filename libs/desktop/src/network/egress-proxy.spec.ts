import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { allowedDomainsEnv, type EgressPolicy } from '@lazyboy/contracts';
import { classifyAddress, embeddedIpv4, hostAddresses } from './address-class.js';
import { EgressProxy, type EgressRefusal } from './egress-proxy.js';

const NONE = new Set<string>();

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'multicast'],
    ['10.1.2.3', 'private-network'],
    ['172.16.0.1', 'private-network'],
    ['172.31.255.255', 'private-network'],
    ['192.168.1.10', 'private-network'],
    ['100.100.100.200', 'private-network'],
    ['fd00:ec2::254', 'private-network'],
    ['::ffff:10.0.0.1', 'private-network'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['172.32.0.1', 'public'],
    ['203.0.113.7', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address, NONE)).toBe(kind);
  });

  it("names this machine's own interface addresses, whatever range they are in", () => {
    const own = hostAddresses();
    expect(own.has('127.0.0.1')).toBe(true);
    expect(classifyAddress('127.0.0.1', own)).toBe('this-host');
    expect(classifyAddress('203.0.113.9', new Set(['203.0.113.9']))).toBe('this-host');
    expect(embeddedIpv4('::ffff:c0a8:0101')).toBe('192.168.1.1');
  });
});

describe('the egress policy from the environment', () => {
  it('reads a comma-separated allow-list, normalised, and refuses what is not a host name', () => {
    expect(allowedDomainsEnv.parse(undefined)).toBeNull();
    expect(allowedDomainsEnv.parse(' ')).toBeNull();
    expect(allowedDomainsEnv.parse('Example.COM., *.pypi.org')).toEqual(['example.com', 'pypi.org']);
    expect(allowedDomainsEnv.safeParse('exa mple.com').success).toBe(false);
    expect(allowedDomainsEnv.safeParse('http://example.com').success).toBe(false);
  });
});

describe('EgressProxy decisions', () => {
  const open: EgressPolicy = { privateNetworks: 'deny', allowedDomains: null };
  const decide = (policy: EgressPolicy, host: string, port = 443) => new EgressProxy({ policy }).decide(host, port);

  it('allows public addresses and refuses loopback, link-local, the host and (by default) the LAN', async () => {
    expect(await decide(open, '203.0.113.5')).toEqual({ allowed: true, address: '203.0.113.5' });
    expect(await decide(open, '[2606:4700::1111]')).toEqual({ allowed: true, address: '2606:4700::1111' });
    expect(await decide(open, '127.0.0.1')).toEqual({ allowed: false, reason: 'this-host' });
    expect(await decide(open, 'localhost')).toEqual({ allowed: false, reason: 'loopback' });
    expect(await decide(open, 'api.localhost')).toEqual({ allowed: false, reason: 'loopback' });
    expect(await decide(open, '169.254.169.254', 80)).toEqual({ allowed: false, reason: 'link-local' });
    expect(await decide(open, '192.168.1.10')).toEqual({ allowed: false, reason: 'private-network' });
    expect(await decide(open, 'nothing-here.invalid')).toEqual({ allowed: false, reason: 'unresolvable' });
    expect(await decide(open, '203.0.113.5', 0)).toEqual({ allowed: false, reason: 'bad-request' });
  });

  it('allows the LAN when the operator does, but never loopback, link-local or the host itself', async () => {
    const lan: EgressPolicy = { privateNetworks: 'allow', allowedDomains: null };
    expect(await decide(lan, '192.168.1.10')).toEqual({ allowed: true, address: '192.168.1.10' });
    expect(await decide(lan, '169.254.169.254')).toEqual({ allowed: false, reason: 'link-local' });
    for (const own of hostAddresses()) expect(await decide(lan, own)).toMatchObject({ allowed: false });
  });

  it('with an allow-list, lets through only those hosts and the names below them, never a bare address', async () => {
    const listed: EgressPolicy = { privateNetworks: 'deny', allowedDomains: ['lazyboy.invalid'] };
    expect(await decide(listed, '203.0.113.5')).toEqual({ allowed: false, reason: 'domain-not-allowed' });
    expect(await decide(listed, 'lazyboy.invalid.evil.test')).toEqual({ allowed: false, reason: 'domain-not-allowed' });
    expect(await decide(listed, 'notlazyboy.invalid')).toEqual({ allowed: false, reason: 'domain-not-allowed' });
    // Listed, but it must still resolve to an address the policy allows (.invalid never resolves).
    expect(await decide(listed, 'www.lazyboy.invalid')).toEqual({ allowed: false, reason: 'unresolvable' });
  });
});

describe('EgressProxy over real sockets', () => {
  const refusals: EgressRefusal[] = [];
  const proxy = new EgressProxy({
    policy: { privateNetworks: 'deny', allowedDomains: null },
    onRefused: (r) => refusals.push(r),
  });
  const entry = net.createServer();
  const secret = http.createServer((_req, res) => res.end('host secret'));
  let entryPort = 0;
  let secretPort = 0;

  beforeAll(async () => {
    proxy.attach(entry, 'screen 7');
    await new Promise<void>((resolve) => entry.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => secret.listen(0, '127.0.0.1', resolve));
    entryPort = (entry.address() as AddressInfo).port;
    secretPort = (secret.address() as AddressInfo).port;
  });

  afterAll(() => {
    proxy.close();
    entry.close();
    secret.close();
  });

  /** Raw request text through the proxy; resolves with what the proxy answered. */
  function send(text: string): Promise<string> {
    return new Promise((resolve) => {
      const socket = net.connect({ port: entryPort, host: '127.0.0.1' }, () => socket.write(text));
      let answer = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
      socket.on('close', () => resolve(answer));
      setTimeout(() => socket.destroy(), 3_000);
    });
  }

  it('refuses a tunnel and a forwarded request to the host, and logs both with their origin', async () => {
    const tunnel = await send(`CONNECT 127.0.0.1:${secretPort} HTTP/1.1\r\nHost: 127.0.0.1:${secretPort}\r\n\r\n`);
    expect(tunnel).toMatch(/^HTTP\/1\.1 403/);
    const forwarded = await send(
      `GET http://127.0.0.1:${secretPort}/ HTTP/1.1\r\nHost: 127.0.0.1:${secretPort}\r\nConnection: close\r\n\r\n`,
    );
    expect(forwarded).toMatch(/^HTTP\/1\.1 403/);
    expect(forwarded).not.toContain('host secret');
    expect(refusals.map((r) => `${r.origin} ${r.host}:${r.port} ${r.reason}`)).toEqual([
      `screen 7 127.0.0.1:${secretPort} this-host`,
      `screen 7 127.0.0.1:${secretPort} this-host`,
    ]);
  });

  it('answers malformed and origin-form requests with a clear 4xx', async () => {
    expect(await send('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await send('CONNECT nonsense HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/^HTTP\/1\.1 403[\s\S]*bad-request/);
    expect(await send('\u0000\u0001garbage\r\n\r\n')).toMatch(/^(HTTP\/1\.1 400|)$/);
  });
});
