import { BlockList, isIP } from 'node:net';
import type { TrustedProxyRange } from '../config.js';

// Who the client is, when requests may pass through reverse proxies: the API and the web server both ask.
// X-Forwarded-For is a list that every proxy appends the address it was called from to, so only its right
// end was written by a proxy of ours; whatever stands left of the first hop we do not trust was written by
// the client, who may have put any address there.

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** An address as one client has it: an IPv4 client seen through a dual-stack socket (`::ffff:a.b.c.d`) is a.b.c.d. */
export function normaliseAddress(address: string): string {
  return IPV4_MAPPED.exec(address)?.[1] ?? address;
}

/** LAZYBOY_TRUSTED_PROXIES, as parsed by its schema in config.ts, for lookups. */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(ranges: readonly TrustedProxyRange[]) {
    for (const range of ranges) this.list.addSubnet(range.network, range.prefix, range.family);
    this.empty = ranges.length === 0;
  }

  has(address: string): boolean {
    const normal = normaliseAddress(address);
    const family = isIP(normal);
    return family !== 0 && this.list.check(normal, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * The client's address: the socket peer, unless the peer is a trusted proxy; then X-Forwarded-For is read
 * from the right, past the hops of trusted proxies, and the first address that is not one of them is the
 * client. A value the client put at the left never wins; a hop that is no address ends the walk at the
 * last proxy that was believed (it is then the best anybody knows).
 */
export function forwardedClientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  let client = normaliseAddress(peer ?? '');
  if (trusted.empty || !trusted.has(client)) return client;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '')).split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normaliseAddress(hops[i]!.trim());
    if (isIP(hop) === 0) return client;
    client = hop;
    if (!trusted.has(hop)) return client;
  }
  return client;
}
