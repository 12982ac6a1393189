import { lookup } from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressPolicy, EgressRefusalReason } from '@lazyboy/contracts';
import { classifyAddress, hostAddresses, type AddressClass } from './address-class.js';

export interface EgressRefusal {
  /** Which of the proxy's listeners the connection came in on, e.g. "screen 0". */
  origin: string;
  host: string;
  port: number;
  reason: EgressRefusalReason;
}

export interface EgressProxyOptions {
  policy: EgressPolicy;
  /** Told of every refused connection (at most REFUSALS_PER_SECOND per origin; the rest are counted). */
  onRefused?: (refusal: EgressRefusal) => void;
  /** Told how many refusals of an origin were not reported one by one. */
  onSuppressed?: (origin: string, count: number) => void;
  connectTimeoutMs?: number;
}

/** Connections one origin may hold open at once: a page cannot exhaust the worker's descriptors. */
const MAX_CONNECTIONS_PER_ORIGIN = 256;
const REFUSALS_PER_SECOND = 20;
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

type Decision = { allowed: true; address: string } | { allowed: false; reason: EgressRefusalReason };

/**
 * The only way out of a computer: an HTTP proxy (absolute-form requests and CONNECT tunnels) whose
 * listeners live inside the computers' network namespaces while its own connections leave from the
 * worker's. Every destination is resolved here, checked against the policy, and connected to by the
 * address that was checked, so a name cannot resolve to something else between the check and the connect.
 */
export class EgressProxy {
  private readonly server: http.Server;
  private readonly origins = new WeakMap<Duplex, string>();
  private readonly open = new Map<string, number>();
  private readonly reportWindows = new Map<string, { second: number; count: number; suppressed: number }>();
  /** This machine's addresses, read again at most once a second: interfaces come and go (DHCP, a VPN, a veth). */
  private hostOwn = { at: 0, addresses: new Set<string>() };
  private readonly connectTimeoutMs: number;

  constructor(private readonly options: EgressProxyOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
    this.server = http.createServer({ requestTimeout: 0 });
    this.server.on('request', (req, res) => void this.forward(req, res));
    this.server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(req, socket, head));
    this.server.on('clientError', (_error, socket: Duplex) => socket.destroy());
  }

  /** Serves the connections `listener` accepts, labelled `origin` in the refusal log. */
  attach(listener: net.Server, origin: string): void {
    listener.on('connection', (socket) => {
      const count = this.open.get(origin) ?? 0;
      if (count >= MAX_CONNECTIONS_PER_ORIGIN) {
        socket.destroy();
        return;
      }
      this.open.set(origin, count + 1);
      socket.once('close', () => this.open.set(origin, (this.open.get(origin) ?? 1) - 1));
      this.origins.set(socket, origin);
      this.server.emit('connection', socket);
    });
  }

  /** The policy's verdict for host:port, resolving names (exported for the tests and the refusal log). */
  async decide(rawHost: string, port: number): Promise<Decision> {
    const host = rawHost
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
    if (!Number.isInteger(port) || port < 1 || port > 65_535 || host === '') return { allowed: false, reason: 'bad-request' };
    const { allowedDomains, privateNetworks } = this.options.policy;
    const literal = net.isIP(host) !== 0;
    if (allowedDomains && (literal || !allowedDomains.some((domain) => host === domain || host.endsWith(`.${domain}`)))) {
      return { allowed: false, reason: 'domain-not-allowed' };
    }
    if (!literal && (host === 'localhost' || host.endsWith('.localhost'))) return { allowed: false, reason: 'loopback' };
    let addresses: string[];
    if (literal) {
      addresses = [host];
    } else {
      try {
        addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
      } catch {
        return { allowed: false, reason: 'unresolvable' };
      }
    }
    // One forbidden address refuses the name: a host that also resolves to loopback is an attack, not a mirror.
    for (const address of addresses) {
      const kind: AddressClass = classifyAddress(address, this.ownAddresses());
      if (kind === 'public' || (kind === 'private-network' && privateNetworks === 'allow')) continue;
      return { allowed: false, reason: kind };
    }
    const first = addresses[0];
    return first === undefined ? { allowed: false, reason: 'unresolvable' } : { allowed: true, address: first };
  }

  private ownAddresses(): ReadonlySet<string> {
    const now = Date.now();
    if (now - this.hostOwn.at > 1_000) this.hostOwn = { at: now, addresses: hostAddresses() };
    return this.hostOwn.addresses;
  }

  close(): void {
    this.server.close();
    this.server.closeAllConnections();
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const origin = this.originOf(req.socket);
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      // An origin-form request: someone opened the proxy itself as a web page.
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      res.end("This is the computer's egress proxy; it forwards http:// requests and CONNECT tunnels only.\n");
      return;
    }
    const port = Number(target.port || 80);
    const decision = await this.checked(origin, target.hostname, port);
    if (!decision.allowed) return refuse(res, target.hostname, port, decision.reason);
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    const upstream = http.request({
      host: decision.address,
      port,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
      agent: false,
      timeout: this.connectTimeoutMs,
    });
    upstream.on('response', (answer) => {
      const answerHeaders: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (!HOP_BY_HOP.has(name) && value !== undefined) answerHeaders[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders);
      answer.pipe(res);
    });
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timed out')));
    upstream.on('error', (error) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`The egress proxy could not reach ${target.host}: ${error.message}\n`);
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  private async tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    const origin = this.originOf(client);
    client.on('error', () => client.destroy());
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(req.url ?? '');
    const host = match?.[1] ?? '';
    const port = Number(match?.[2] ?? 0);
    const decision = await this.checked(origin, host, port);
    if (!decision.allowed) {
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${decision.reason}\n`);
      return;
    }
    const upstream = net.connect({ host: decision.address, port });
    let established = false;
    upstream.setTimeout(this.connectTimeoutMs, () => upstream.destroy(new Error('timed out')));
    upstream.once('connect', () => {
      established = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      if (!established) {
        client.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${error.message}\n`);
      } else {
        client.destroy();
      }
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  /** Decides and reports a refusal; the refusal itself is the caller's to answer. */
  private async checked(origin: string, host: string, port: number): Promise<Decision> {
    const decision = await this.decide(host, port);
    if (!decision.allowed) this.report({ origin, host, port, reason: decision.reason });
    return decision;
  }

  private report(refusal: EgressRefusal): void {
    const second = Math.floor(Date.now() / 1000);
    let window = this.reportWindows.get(refusal.origin);
    if (!window || window.second !== second) {
      if (window && window.suppressed > 0) this.options.onSuppressed?.(refusal.origin, window.suppressed);
      window = { second, count: 0, suppressed: 0 };
      this.reportWindows.set(refusal.origin, window);
    }
    window.count += 1;
    if (window.count > REFUSALS_PER_SECOND) window.suppressed += 1;
    else this.options.onRefused?.(refusal);
  }

  private originOf(socket: Duplex): string {
    return this.origins.get(socket) ?? 'unknown';
  }
}

function refuse(res: http.ServerResponse, host: string, port: number, reason: EgressRefusalReason): void {
  res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'x-lazyboy-egress': 'refused' });
  res.end(`The computer's network policy refused ${host}:${port} (${reason}).\n`);
}
