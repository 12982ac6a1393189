import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import {
  apiErrorBodySchema,
  CONTROL_CHECK_MAX_HOLDS,
  crossSiteOrigin,
  INTERNAL_SECRET_HEADER,
  meViewSchema,
  viewerControlCheckResponseSchema,
  viewerTicketRedeemResponseSchema,
  type ApiErrorBody,
  type ApiErrorReason,
  type ViewerControlCheckRequest,
  type ViewerTicketRedeemResponse,
} from '@lazyboy/contracts';
import { RfbInputFilter, RfbProtocolError } from './rfb-input-filter.js';

// The live view of an agent's screen: the browser's noVNC connects to /view/<ticket>?c=<connection id>,
// this server redeems the single-use ticket with the API (which answers with the screen's websockify
// address and whom the ticket was issued to: only that signed-in person, by their session cookie, is
// served) and carries the RFB stream both ways. Input is filtered here, not trusted to the page: a
// connection starts view-only, and `POST /view/<connection id>/control` with a control ticket opens it
// to keyboard and pointer for CONTROL_WINDOW_MS (the page repeats it while its person holds control);
// `POST /view/<connection id>/watch` closes it again. The picture never reconnects for either. A control
// lease can also end elsewhere (it lapsed, an admin ended it, another tab handed back): every
// CONTROL_CHECK_MS the proxy asks the API whether each driving connection's person still holds the screen,
// and closes the input of those who do not. The API's routes for this server take its shared secret.

/**
 * Input stays allowed this long after the last control ticket (the page renews every 12 s): the bound for
 * a connection whose control the checks cannot confirm or deny (the API unreachable).
 */
const CONTROL_WINDOW_MS = 30_000;
/** How often driving connections are checked against the API: how long input outlives a lease ended elsewhere. */
const CONTROL_CHECK_MS = 1_000;

const UPSTREAM_OPEN_MS = 10_000;
const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;
const TICKET = /^[A-Za-z0-9._~-]{16,4096}$/;
const CONNECTION_ID = /^[A-Za-z0-9_-]{22,64}$/;

export type ViewRoute =
  | { kind: 'stream'; ticket: string; connectionId: string }
  | { kind: 'control'; connectionId: string }
  | { kind: 'watch'; connectionId: string };

/** What a /view URL asks for; null when it is not one (or is malformed). */
export function viewRoute(method: string | undefined, url: string | undefined): ViewRoute | null {
  if (!url?.startsWith('/view/')) return null;
  const parsed = new URL(url, 'http://view.invalid');
  const parts = parsed.pathname.split('/').slice(2);
  if (method === 'GET' && parts.length === 1) {
    const ticket = parts[0]!;
    const connectionId = parsed.searchParams.get('c') ?? '';
    return TICKET.test(ticket) && CONNECTION_ID.test(connectionId) ? { kind: 'stream', ticket, connectionId } : null;
  }
  if (method === 'POST' && parts.length === 2 && CONNECTION_ID.test(parts[0]!)) {
    if (parts[1] === 'control') return { kind: 'control', connectionId: parts[0]! };
    if (parts[1] === 'watch') return { kind: 'watch', connectionId: parts[0]! };
  }
  return null;
}

class ViewError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorBody['error']['code'],
    message: string,
    /** The API's reason for a conflict, passed on: the page words it in its person's language. */
    readonly reason?: ApiErrorReason,
  ) {
    super(message);
    this.name = 'ViewError';
  }
}

/** Another site's page, with the person's cookie (libs/contracts same-origin.ts): never served. */
const CROSS_SITE = new ViewError(403, 'FORBIDDEN', 'a request from another site is refused');

/** One browser's connection to one screen. */
class ViewConnection {
  readonly filter = new RfbInputFilter();
  private controlTimer: NodeJS.Timeout | null = null;
  /** Counts control grants: a check answered about an older grant must not end a newer one. */
  grants = 0;

  constructor(
    readonly screenId: string,
    /** Who opened it: only they may switch it. */
    readonly userId: string,
    private readonly close: () => void,
  ) {}

  get driving(): boolean {
    return this.filter.allowInput;
  }

  allowInputFor(ms: number): void {
    this.grants++;
    this.filter.allowInput = true;
    if (this.controlTimer) clearTimeout(this.controlTimer);
    this.controlTimer = setTimeout(() => this.watchOnly(), ms);
    this.controlTimer.unref();
  }

  watchOnly(): void {
    this.filter.allowInput = false;
    if (this.controlTimer) clearTimeout(this.controlTimer);
    this.controlTimer = null;
  }

  end(): void {
    this.watchOnly();
    this.close();
  }
}

export class ViewProxy {
  // noVNC's messages are small; a bigger one is refused by ws before it is buffered.
  private readonly server = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
  private readonly connections = new Map<string, ViewConnection>();
  /** Connection ids whose upgrade is under way (redeeming, connecting): taken, though not open yet. */
  private readonly reserved = new Set<string>();
  private readonly checkTimer: NodeJS.Timeout;
  private checking = false;
  /** The control checks are failing (logged once per failing spell, not every second). */
  private checksFailing = false;

  constructor(
    private readonly api: URL,
    /** LAZYBOY_INTERNAL_SECRET: the API's routes for this server take it. */
    private readonly internalSecret: string,
  ) {
    this.checkTimer = setInterval(() => void this.checkControl(), CONTROL_CHECK_MS);
    this.checkTimer.unref();
  }

  /** The websocket of the view: redeem, connect to the screen, then carry bytes (input filtered). */
  async upgrade(
    route: Extract<ViewRoute, { kind: 'stream' }>,
    req: http.IncomingMessage,
    socket: Duplex,
    head: Buffer,
  ): Promise<void> {
    // Node drops its own error listener from an upgrading socket: without one, a caller that resets the
    // connection while the ticket is redeemed would crash the server.
    socket.on('error', () => socket.destroy());
    if (crossSiteOrigin(req.headers) !== null) {
      socket.end(httpError(CROSS_SITE));
      return;
    }
    if (this.connections.has(route.connectionId) || this.reserved.has(route.connectionId)) {
      socket.end(httpError(new ViewError(409, 'CONFLICT', 'this connection id is in use')));
      return;
    }
    this.reserved.add(route.connectionId);
    let redeemed: ViewerTicketRedeemResponse;
    let userId: string;
    let upstream: WebSocket;
    try {
      ({ redeemed, userId } = await this.redeemFor(req, route.ticket));
      upstream = await openUpstream(redeemed.target, redeemed.grant);
    } catch (error) {
      this.reserved.delete(route.connectionId);
      const failure = error instanceof ViewError ? error : new ViewError(502, 'NOT_READY', 'the screen is not reachable');
      socket.end(httpError(failure));
      return;
    }
    // The browser may be gone by now, or its handshake bad: ws then never calls back, and the screen's
    // connection must not stay open.
    let carried = false;
    socket.once('close', () => {
      this.reserved.delete(route.connectionId);
      if (!carried) upstream.terminate();
    });
    this.server.handleUpgrade(req, socket, head, (browser) => {
      carried = true;
      this.reserved.delete(route.connectionId);
      this.carry(route.connectionId, redeemed, userId, browser, upstream);
    });
  }

  /** POST /view/<id>/control {ticket} and /view/<id>/watch. */
  async control(
    route: Exclude<ViewRoute, { kind: 'stream' }>,
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ): Promise<void> {
    try {
      if (crossSiteOrigin(req.headers) !== null) throw CROSS_SITE;
      const connection = this.connections.get(route.connectionId);
      if (!connection) throw new ViewError(404, 'NOT_FOUND', 'no such view connection');
      if (route.kind === 'watch') {
        // Anyone may turn input off; only the connection's own person gets here with a cookie, though.
        if ((await this.signedIn(req)) !== connection.userId) throw new ViewError(404, 'NOT_FOUND', 'no such view connection');
        connection.watchOnly();
      } else {
        const ticket = await readTicket(req);
        const { redeemed, userId } = await this.redeemFor(req, ticket);
        if (userId !== connection.userId) throw new ViewError(404, 'NOT_FOUND', 'no such view connection');
        if (redeemed.screenId !== connection.screenId) throw new ViewError(403, 'FORBIDDEN', 'the ticket is for another screen');
        if (redeemed.viewOnly) throw new ViewError(403, 'FORBIDDEN', 'take control of the screen first');
        connection.allowInputFor(CONTROL_WINDOW_MS);
      }
      res.writeHead(204).end();
    } catch (error) {
      const failure = error instanceof ViewError ? error : new ViewError(502, 'NOT_READY', 'the API is not reachable');
      res.writeHead(failure.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(errorBody(failure)));
    }
  }

  /** Ends every view (the server is stopping). */
  closeAll(): void {
    clearInterval(this.checkTimer);
    for (const connection of this.connections.values()) connection.end();
  }

  /**
   * Closes the input of every driving connection whose person no longer holds the screen. One request for
   * all of them, one at a time; while the API cannot answer, the control window bounds them instead.
   */
  async checkControl(): Promise<void> {
    if (this.checking) return;
    // Each with the grant it is asked about: one granted again while the API answers keeps its new grant.
    const driving = [...this.connections.values()].filter((c) => c.driving).map((c) => ({ connection: c, grant: c.grants }));
    if (driving.length === 0) return;
    this.checking = true;
    try {
      for (let i = 0; i < driving.length; i += CONTROL_CHECK_MAX_HOLDS) {
        const batch = driving.slice(i, i + CONTROL_CHECK_MAX_HOLDS);
        const lost = await this.lostHolds(batch.map(({ connection: c }) => ({ screenId: c.screenId, userId: c.userId })));
        for (const { connection, grant } of batch)
          if (connection.grants === grant && lost.has(`${connection.screenId} ${connection.userId}`)) connection.watchOnly();
      }
      if (this.checksFailing) console.log('web: control checks answer again');
      this.checksFailing = false;
    } catch (error) {
      // The next check tries again; until then the control window bounds what a lost lease can still type.
      if (!this.checksFailing) console.warn(`web: control checks failing: ${(error as Error).message}`);
      this.checksFailing = true;
    } finally {
      this.checking = false;
    }
  }

  /** Which of these holds the API says have ended, as "screenId userId". */
  private async lostHolds(holds: ViewerControlCheckRequest['holds']): Promise<Set<string>> {
    const res = await fetch(new URL('/api/viewer/control-check', this.api), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [INTERNAL_SECRET_HEADER]: this.internalSecret },
      body: JSON.stringify({ holds }),
      signal: AbortSignal.timeout(5_000),
    });
    if (!res.ok) {
      await res.body?.cancel();
      // 403: the two servers were given different LAZYBOY_INTERNAL_SECRETs.
      throw new Error(`the API answered ${res.status}`);
    }
    const answer = viewerControlCheckResponseSchema.parse(await res.json());
    return new Set(answer.holds.filter((h) => !h.held).map((h) => `${h.screenId} ${h.userId}`));
  }

  private carry(
    connectionId: string,
    redeemed: ViewerTicketRedeemResponse,
    userId: string,
    browser: WebSocket,
    upstream: WebSocket,
  ): void {
    const connection = new ViewConnection(redeemed.screenId, userId, () => {
      browser.terminate();
      upstream.terminate();
    });
    this.connections.set(connectionId, connection);
    if (!redeemed.viewOnly) connection.allowInputFor(CONTROL_WINDOW_MS);
    browser.on('message', (data: RawData) => {
      try {
        const out = connection.filter.push(toBuffer(data));
        if (out.length > 0) upstream.send(out);
      } catch (error) {
        if (!(error instanceof RfbProtocolError)) throw error;
        connection.end();
      }
    });
    upstream.on('message', (data: RawData) => browser.send(toBuffer(data)));
    // Paused since it opened: the screen's first bytes (its RFB version) may already be waiting.
    upstream.resume();
    const finish = () => {
      if (this.connections.get(connectionId) === connection) this.connections.delete(connectionId);
      connection.end();
    };
    browser.on('close', finish);
    upstream.on('close', finish);
    browser.on('error', finish);
    upstream.on('error', finish);
  }

  /** Redeems a ticket for the person signed in on this request; refused for anyone else. */
  private async redeemFor(
    req: http.IncomingMessage,
    ticket: string,
  ): Promise<{ redeemed: ViewerTicketRedeemResponse; userId: string }> {
    const userId = await this.signedIn(req);
    const redeemed = await this.redeem(ticket);
    if (redeemed.userId !== userId) throw new ViewError(403, 'FORBIDDEN', 'this viewer ticket is not yours');
    return { redeemed, userId };
  }

  private async signedIn(req: http.IncomingMessage): Promise<string> {
    const cookie = req.headers.cookie;
    if (!cookie) throw new ViewError(401, 'UNAUTHENTICATED', 'sign in first');
    let res: Response;
    try {
      res = await fetch(new URL('/api/auth/me', this.api), { headers: { cookie }, signal: AbortSignal.timeout(10_000) });
    } catch {
      throw new ViewError(502, 'NOT_READY', 'the API is not reachable');
    }
    if (res.status === 401) throw new ViewError(401, 'UNAUTHENTICATED', 'sign in first');
    if (!res.ok) throw new ViewError(502, 'NOT_READY', `the API answered ${res.status}`);
    return meViewSchema.parse(await res.json()).user.id;
  }

  private async redeem(ticket: string): Promise<ViewerTicketRedeemResponse> {
    let res: Response;
    try {
      res = await fetch(new URL('/api/viewer/redeem', this.api), {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_SECRET_HEADER]: this.internalSecret },
        body: JSON.stringify({ ticket }),
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      throw new ViewError(502, 'NOT_READY', 'the API is not reachable');
    }
    const body: unknown = await res.json().catch(() => null);
    if (res.ok) return viewerTicketRedeemResponseSchema.parse(body);
    const error = apiErrorBodySchema.safeParse(body).data?.error;
    const message = error?.message ?? `the API answered ${res.status}`;
    // The ticket was refused (used, expired, forged): not a lost sign-in, which 401 would tell the page.
    if (res.status === 401) throw new ViewError(403, 'FORBIDDEN', message);
    if (res.status === 409) throw new ViewError(409, 'CONFLICT', message, error?.reason);
    throw new ViewError(502, 'NOT_READY', message);
  }
}

function openUpstream(target: string, grant: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const upstream = new WebSocket(target, ['binary'], {
      perMessageDeflate: false,
      handshakeTimeout: UPSTREAM_OPEN_MS,
      headers: { authorization: `Bearer ${grant}` },
      // Never sent anywhere else: a redirect from the worker is refused.
      followRedirects: false,
    });
    upstream.once('open', () => {
      // Held until the browser side is connected and listening: nothing the screen sends is lost.
      upstream.pause();
      resolve(upstream);
    });
    upstream.once('error', () => reject(new ViewError(502, 'NOT_READY', 'the screen is not reachable')));
  });
}

async function readTicket(req: http.IncomingMessage): Promise<string> {
  let raw = '';
  for await (const chunk of req) {
    raw += String(chunk);
    if (raw.length > 8_192) throw new ViewError(413, 'BAD_REQUEST', 'the body is too large');
  }
  let ticket: unknown;
  try {
    ticket = (JSON.parse(raw) as { ticket?: unknown }).ticket;
  } catch {
    throw new ViewError(400, 'VALIDATION_FAILED', 'expected JSON {"ticket": "…"}');
  }
  if (typeof ticket !== 'string' || !TICKET.test(ticket))
    throw new ViewError(400, 'VALIDATION_FAILED', 'expected a viewer ticket');
  return ticket;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

function errorBody(error: ViewError): ApiErrorBody {
  return { error: { code: error.code, message: error.message, ...(error.reason ? { reason: error.reason } : {}) } };
}

/** A plain HTTP answer on a socket that asked to upgrade (the websocket never opens). */
function httpError(error: ViewError): string {
  const body = JSON.stringify(errorBody(error));
  return (
    `HTTP/1.1 ${error.status} ${error.code}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}
