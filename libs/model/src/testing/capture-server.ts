import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedRequest {
  method: string;
  /** Path and query. */
  url: string;
  /** Lower-case names, as Node gives them. */
  headers: http.IncomingHttpHeaders;
}

/**
 * A plain HTTP server on loopback that records every request and answers 404: where a test checks that
 * something (a model key above all) was never sent.
 */
export class CaptureServer {
  readonly requests: CapturedRequest[] = [];
  private readonly server = http.createServer((req, res) => {
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'capture server: nothing here', type: 'invalid_request_error' } }));
  });
  private port = 0;

  static async start(): Promise<CaptureServer> {
    const capture = new CaptureServer();
    await new Promise<void>((resolve) => capture.server.listen(0, '127.0.0.1', resolve));
    capture.port = (capture.server.address() as AddressInfo).port;
    return capture;
  }

  /** A base URL ending in /v1, like a model server's. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** The authorization headers it received, in order (undefined for a request without one). */
  get authorizations(): (string | undefined)[] {
    return this.requests.map((request) => request.headers.authorization);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
