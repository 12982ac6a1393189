import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkerEnv } from '@lazyboy/contracts';

/**
 * The worker's control API: HTTP + JSON on loopback (or the cluster network), every call but /healthz
 * authorised by the computer's bearer token. The desktop routes (observe, act, browser, shell, files)
 * join this server as they are built.
 */
export class ControlServer {
  private readonly server: http.Server;
  private readonly tokenDigest: Buffer;
  private readonly startedAt = Date.now();

  constructor(private readonly config: WorkerEnv) {
    this.tokenDigest = digest(config.LAZYBOY_CONTROL_TOKEN);
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  async listen(): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.config.LAZYBOY_WORKER_PORT, this.config.LAZYBOY_WORKER_HOST, resolve);
    });
    return this.server.address() as AddressInfo;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/healthz') {
      return sendJson(res, 200, {
        status: 'ok',
        computerId: this.config.LAZYBOY_COMPUTER_ID,
        uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
      });
    }
    if (!this.authorised(req.headers.authorization)) {
      return sendJson(res, 401, { error: { code: 'UNAUTHENTICATED', message: 'a valid control token is required' } });
    }
    return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${req.method} ${url.pathname}` } });
  }

  private authorised(header: string | undefined): boolean {
    const match = /^Bearer (.+)$/.exec(header ?? '');
    // Compare fixed-length digests so neither the token's content nor its length leaks through timing.
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), this.tokenDigest);
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}
