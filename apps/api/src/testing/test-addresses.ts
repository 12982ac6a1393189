import { randomBytes } from 'node:crypto';
import http from 'node:http';

// Client addresses for the suites that test who the API and the web server count a request against.

/** A made-up remote client address (10.0.0.0/8), a fresh one per call: rate limits on it never collide. */
export function freshIp(): string {
  const [a = 0, b = 0, c = 0] = randomBytes(3);
  return `10.${a}.${b}.${c}`;
}

/**
 * A loopback address other than 127.0.0.1 (the whole of 127.0.0.0/8 is this machine): a caller that the
 * API and the web server can only know by its socket, with an address of its own, so the rate limits it
 * runs into are its own and not those of every other suite calling from 127.0.0.1. Always within
 * 127.200.0.0–127.249.255.255: a test that lists a loopback proxy picks it outside.
 */
export function freshLoopback(): string {
  const [a = 0, b = 0, c = 0] = randomBytes(3);
  return `127.${200 + (a % 50)}.${b}.${(c % 250) + 2}`;
}

export interface JsonAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** A JSON request sent from `localAddress` (fetch cannot pick its source address). */
export function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonAnswer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
        localAddress,
        // One connection per request, closed after it: nothing is left open when the suite ends.
        agent: false,
        headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
