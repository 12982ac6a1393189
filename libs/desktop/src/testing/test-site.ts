import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StandInInternet } from './stand-in-internet.js';

export interface TestSite {
  /** Ends with '/'. */
  url: string;
  close(): Promise<void>;
}

/**
 * A site a computer's browser can open. As root the screens are network islands that reach only the
 * internet (through the egress proxy), so the site is served on a stand-in internet; otherwise the screens
 * share the host's network and loopback will do.
 */
export async function startTestSite(handler: http.RequestListener): Promise<TestSite> {
  if (process.getuid?.() === 0) {
    const internet = await StandInInternet.start();
    const served = await internet.serve(handler, 8080);
    return {
      url: served.url,
      close: async () => {
        served.close();
        internet.stop();
      },
    };
  }
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Static pages: `pages` maps paths to HTML. */
export function startTestPages(pages: Record<string, string>): Promise<TestSite> {
  return startTestSite((req, res) => {
    const page = pages[new URL(req.url ?? '/', 'http://x').pathname];
    res.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not found');
  });
}
