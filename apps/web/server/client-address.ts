import type http from 'node:http';
import { forwardedClientAddress, type TrustedProxies } from '@lazyboy/contracts/node';

type RequestParts = Pick<http.IncomingMessage, 'headers' | 'socket'>;

/**
 * Who the browser is and which address it used, as far as this server can tell: the connection's own peer
 * and Host, unless the peer is one of the reverse proxies the operator listed (LAZYBOY_TRUSTED_PROXIES);
 * only such a proxy's X-Forwarded-For and X-Forwarded-Host are believed. Any other caller, the agents'
 * own browsers on this machine included, is counted by its own address whatever headers it sends.
 */
export class ClientAddresses {
  constructor(private readonly trusted: TrustedProxies) {}

  /** The browser's address: what the API's rate limits and audit log count. */
  of(req: RequestParts): string {
    return forwardedClientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.trusted);
  }

  /**
   * The address the browser used: a trusted proxy in front may have named it (its Host is then often its
   * own upstream name). The API compares pages' Origin with it when the browser sends no Sec-Fetch-Site.
   */
  hostOf(req: RequestParts): string | undefined {
    const named = req.headers['x-forwarded-host'];
    const forwarded = Array.isArray(named) ? named.join(',') : named;
    if (forwarded && this.trusted.has(req.socket.remoteAddress ?? '')) return forwarded;
    return req.headers.host;
  }
}
