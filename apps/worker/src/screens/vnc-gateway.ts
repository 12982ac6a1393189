import net from 'node:net';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { slotOfScreenVncPath, verifyViewGrant } from '@lazyboy/contracts';
import type { ScreenManager } from '@lazyboy/desktop';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

/** noVNC's messages to the screen are small (keys, pointer, frame requests); a bigger one is refused. */
const MAX_MESSAGE_BYTES = 256 * 1024;

/**
 * A screen's picture for the web server's /view proxy: a WebSocket (binary RFB) in front of x11vnc's Unix
 * socket, which nothing but this worker can open. The upgrade must carry a view grant the API signed for
 * this computer and slot with the control token; each grant opens one connection.
 */
export class VncGateway {
  private readonly server = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: (protocols) => (protocols.has('binary') ? 'binary' : false),
  });
  /** Grant nonces already used, until they expire. */
  private readonly used = new Map<string, number>();
  private readonly sockets = new Set<WebSocket>();

  constructor(
    private readonly computerId: string,
    private readonly controlToken: string,
    private readonly screens: ScreenManager,
    private readonly log: (line: string) => void,
  ) {}

  /** Handles an upgrade to a VNC path; true when the path was one (answered either way). */
  handles(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const pathname = new URL(req.url ?? '/', 'http://worker').pathname;
    const slot = slotOfScreenVncPath(pathname);
    if (slot === undefined) return false;
    void this.open(slot, req, socket, head);
    return true;
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
    this.server.close();
  }

  private async open(slot: number, req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const grant = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const claims = await verifyViewGrant(this.controlToken, this.computerId, slot, grant);
    this.forgetExpired();
    if (!claims || this.used.has(claims.nonce))
      return refuse(socket, 401, 'a valid, unused view grant for this screen is required');
    this.used.set(claims.nonce, claims.expiresAt);
    const endpoints = this.screens.endpoints(slot);
    if (!endpoints) return refuse(socket, 409, `the screen of slot ${slot} is not running`);
    const vnc = net.connect({ path: endpoints.vncSocket });
    vnc.once('error', (error) => {
      this.log(`vnc slot ${slot}: ${error.message}`);
      refuse(socket, 502, 'the screen does not answer');
    });
    vnc.once('connect', () => {
      vnc.removeAllListeners('error');
      vnc.pause();
      this.server.handleUpgrade(req, socket, head, (ws) => this.carry(ws, vnc));
    });
  }

  private carry(ws: WebSocket, vnc: net.Socket): void {
    this.sockets.add(ws);
    vnc.on('data', (chunk) => ws.send(chunk, { binary: true }));
    ws.on('message', (data: RawData) => vnc.write(toBuffer(data)));
    const end = (): void => {
      this.sockets.delete(ws);
      vnc.destroy();
      ws.terminate();
    };
    ws.on('close', end);
    ws.on('error', end);
    vnc.on('close', end);
    vnc.on('error', end);
    vnc.resume();
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [nonce, expiresAt] of this.used) if (expiresAt < now) this.used.delete(nonce);
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

function refuse(socket: Duplex, status: number, message: string): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: { code: status === 401 ? 'UNAUTHENTICATED' : 'SCREEN_NOT_RUNNING', message } });
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 409 ? 'Conflict' : 'Bad Gateway'}\r\n` +
      `connection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
