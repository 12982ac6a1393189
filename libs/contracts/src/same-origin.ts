// Another site's page may send requests here with the person's cookie: SameSite=Lax keeps it off
// cross-site POSTs, but not off those of a page on the same host under another port (a home server runs
// several services), nor off websocket handshakes. Browsers say where a request comes from, so such a
// request is refused: the API for its routes and socket.io, the web server for its /view routes. Clients
// without a page (the CLI, the web server's own calls, curl) say nothing and are not concerned.

/** Request headers as Node has them (lower-case names). */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/** Methods that change something: a cross-site page may not send them. */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Where a request from another site's page came from (its Origin, or its Sec-Fetch-Site), or null when it
 * came from this site's own pages or from no page at all.
 *
 * Sec-Fetch-Site, which pages cannot set, decides when the browser sends it: only `same-origin` (and `none`,
 * the person's own doing) pass; it holds behind any proxy. Without it (older browsers) the Origin must be
 * the address the request was sent to: its Host, or the X-Forwarded-Host a proxy in front set (a page cannot
 * set that header cross-site without a CORS preflight, which is never granted).
 */
export function crossSiteOrigin(headers: RequestHeaders): string | null {
  const site = first(headers['sec-fetch-site']);
  const origin = first(headers['origin']);
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? null : (origin ?? site);
  if (origin === undefined) return null;
  let host: string;
  try {
    // "null" (a sandboxed frame, a file: page) fails the parse: never this site.
    host = new URL(origin).host.toLowerCase();
  } catch {
    return origin;
  }
  const own = [first(headers['host']), ...(first(headers['x-forwarded-host'])?.split(',') ?? [])]
    .map((value) => value?.trim().toLowerCase())
    .filter((value): value is string => !!value);
  return own.includes(host) ? null : origin;
}

/** True for a request that changes something and was sent by another site's page. */
export function isCrossSiteWrite(method: string | undefined, headers: RequestHeaders): boolean {
  return UNSAFE_METHODS.has((method ?? '').toUpperCase()) && crossSiteOrigin(headers) !== null;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
