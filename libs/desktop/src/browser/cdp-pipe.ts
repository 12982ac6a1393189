import type { Readable, Writable } from 'node:stream';
import type { ConnectOverCDPTransport } from 'playwright-core';
import { BrowserUnreachableError } from '../display/errors.js';

interface CdpMessage {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { message?: string };
}

interface PipeClient {
  /** The browser session (Target.attachToBrowserTarget) this client's root-level messages go to. */
  root: string;
  /** What the client holds; playwright-core sets its onmessage and onclose. */
  transport: ConnectOverCDPTransport;
  closed: boolean;
}

type Pending = { client: PipeClient; id: number } | { resolve: (message: CdpMessage) => void };

/**
 * Chromium's DevTools over --remote-debugging-pipe: the browser reads CDP from its fd 3 and writes to its
 * fd 4, one JSON message per NUL. No port is open, so nothing but the worker that started the browser can
 * drive it — not a page, not the agent's shell, not another screen.
 *
 * Several clients share the one pipe: each gets a browser session of its own (Target.attachToBrowserTarget),
 * which Chromium treats like a separate DevTools connection. Messages a client sends without a session go
 * to its browser session; the sessions it attaches to (pages, workers) are learnt from the
 * Target.attachedToTarget events and attachToTarget answers it receives, and their messages are routed
 * back to it alone.
 */
export class CdpPipe {
  private readonly clients = new Set<PipeClient>();
  /** Session id → the client that owns it (its browser session and everything attached through it). */
  private readonly owners = new Map<string, PipeClient>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buffered: Buffer[] = [];
  /** Messages read but not yet routed: one is handed on per task (see receive). */
  private readonly inbox: CdpMessage[] = [];
  private pumping = false;
  private closedReason: string | undefined;

  constructor(
    private readonly toBrowser: Writable,
    fromBrowser: Readable,
  ) {
    fromBrowser.on('data', (chunk: Buffer) => this.receive(chunk));
    fromBrowser.on('close', () => this.shut('the browser closed its DevTools pipe'));
    fromBrowser.on('error', () => undefined);
    toBrowser.on('error', () => undefined);
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  /** A root-level call (Browser.getVersion for readiness); rejects when the browser does not answer in time. */
  async call(method: string, params: Record<string, unknown> = {}, timeoutMs = 5_000): Promise<unknown> {
    if (this.closedReason) throw new BrowserUnreachableError(this.closedReason);
    const id = this.nextId++;
    const answer = await new Promise<CdpMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new BrowserUnreachableError(`the browser did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      });
      this.write({ id, method, params });
    });
    if (answer.error) throw new BrowserUnreachableError(`${method} failed: ${answer.error.message ?? 'unknown error'}`);
    return answer.result;
  }

  /** True when the browser answers within `timeoutMs`. */
  async answers(timeoutMs = 2_000): Promise<boolean> {
    return this.call('Browser.getVersion', {}, timeoutMs).then(
      () => true,
      () => false,
    );
  }

  /** A new client: for playwright-core's `chromium.connectOverCDP(transport)`. */
  async connect(): Promise<ConnectOverCDPTransport> {
    const result = (await this.call('Target.attachToBrowserTarget')) as { sessionId?: string } | undefined;
    const root = result?.sessionId;
    if (!root) throw new BrowserUnreachableError('the browser gave no browser session');
    const transport: ConnectOverCDPTransport = {
      send: (message: object) => this.sendFrom(client, message as CdpMessage),
      close: () => {
        if (client.closed) return;
        if (!this.closedReason) this.write({ id: this.nextId++, method: 'Target.detachFromTarget', params: { sessionId: root } });
        this.drop(client, 'closed by the client');
      },
    };
    const client: PipeClient = { root, transport, closed: false };
    this.clients.add(client);
    this.owners.set(root, client);
    return transport;
  }

  private sendFrom(client: PipeClient, message: CdpMessage): void {
    if (client.closed || this.closedReason) return;
    const id = this.nextId++;
    if (message.id !== undefined) this.pending.set(id, { client, id: message.id });
    this.write({ ...withoutBrowserUi(message), id, sessionId: message.sessionId ?? client.root });
  }

  private write(message: CdpMessage): void {
    this.toBrowser.write(`${JSON.stringify(message)}\0`);
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0, start); end !== -1; end = chunk.indexOf(0, start)) {
      this.buffered.push(chunk.subarray(start, end));
      const text = Buffer.concat(this.buffered).toString('utf8');
      this.buffered = [];
      start = end + 1;
      try {
        this.inbox.push(JSON.parse(text) as CdpMessage);
      } catch {
        continue;
      }
    }
    if (start < chunk.length) this.buffered.push(chunk.subarray(start));
    this.pump();
  }

  /**
   * One message per task, as a WebSocket delivers them: playwright-core handles an answer (the frame tree)
   * in a later microtask, and events read in the same task would be handled before it and dropped (an
   * execution context for a frame it does not know yet, and evaluate() then waits forever).
   */
  private pump(): void {
    if (this.pumping || this.inbox.length === 0) return;
    this.pumping = true;
    setImmediate(() => {
      this.pumping = false;
      const message = this.inbox.shift();
      if (message) this.route(message);
      this.pump();
    });
  }

  private route(message: CdpMessage): void {
    if (message.id !== undefined) {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (!waiting) return;
      if ('resolve' in waiting) return waiting.resolve(message);
      const { client } = waiting;
      if (client.closed) return;
      // Target.attachToTarget answers with the new session (no event announces it): it is this client's.
      const attached = (message.result as { sessionId?: unknown } | undefined)?.sessionId;
      if (typeof attached === 'string' && !this.owners.has(attached)) this.owners.set(attached, client);
      this.deliver(client, { ...message, id: waiting.id });
      return;
    }
    const sessionId = message.sessionId;
    if (sessionId === undefined) {
      // Root level: the browser tells us a client's browser session went away.
      const detached = message.method === 'Target.detachedFromTarget' ? message.params?.['sessionId'] : undefined;
      const client = typeof detached === 'string' ? this.owners.get(detached) : undefined;
      if (client && client.root === detached) this.drop(client, 'the browser detached the session');
      return;
    }
    const client = this.owners.get(sessionId);
    if (!client || client.closed) return;
    const child = message.params?.['sessionId'];
    if (message.method === 'Target.attachedToTarget' && typeof child === 'string') this.owners.set(child, client);
    if (message.method === 'Target.detachedFromTarget' && typeof child === 'string') this.owners.delete(child);
    this.deliver(client, message);
  }

  private deliver(client: PipeClient, message: CdpMessage): void {
    const own = message.sessionId === client.root ? { ...message, sessionId: undefined } : message;
    if (own.sessionId === undefined) delete own.sessionId;
    client.transport.onmessage?.(own);
  }

  private drop(client: PipeClient, reason: string): void {
    if (client.closed) return;
    client.closed = true;
    this.clients.delete(client);
    for (const [sessionId, owner] of this.owners) if (owner === client) this.owners.delete(sessionId);
    for (const [id, waiting] of this.pending) if ('client' in waiting && waiting.client === client) this.pending.delete(id);
    // Asynchronously: playwright-core expects onclose after close() has returned.
    setImmediate(() => client.transport.onclose?.(reason));
  }

  private shut(reason: string): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    for (const client of [...this.clients]) this.drop(client, reason);
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      if ('resolve' in waiting) waiting.resolve({ id, error: { message: reason } });
    }
  }
}

/**
 * A pipe client sees Chromium's own UI as targets too (the omnibox popup and other top-chrome pages, type
 * browser_ui), which a port client never does; playwright-core stalls on them. Auto-attach leaves them out
 * unless the client asked for a filter of its own.
 */
function withoutBrowserUi(message: CdpMessage): CdpMessage {
  if (message.method !== 'Target.setAutoAttach' || message.params?.['filter'] !== undefined) return message;
  const filter = [{ type: 'browser', exclude: true }, { type: 'tab', exclude: true }, { type: 'browser_ui', exclude: true }, {}];
  return { ...message, params: { ...message.params, filter } };
}
