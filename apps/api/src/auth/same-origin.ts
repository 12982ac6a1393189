import type { IncomingHttpHeaders } from 'node:http';

// Another site's page may send requests here with the person's cookie: SameSite=Lax keeps it off
// cross-site POSTs, but not off those of a page on the same host under another port (a home server runs
// several services), nor off websocket handshakes. Browsers name the page's origin on both, so such a
// request is refused unless its Origin is the address it was sent to. Clients without a page (the CLI,
// the web server's own calls, curl) send no Origin and are not concerned.

/** Methods that change something: a cross-site page may not send them. */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The Origin of a request that came from another site's page, or null when it came from this one (or from
 * no page). The request's own address is its Host, or the X-Forwarded-Host a proxy in front set (a page
 * cannot set that header on a cross-site request without a CORS preflight, which the API never grants).
 */
export function crossSiteOrigin(headers: IncomingHttpHeaders): string | null {
  const origin = headers.origin;
  if (origin === undefined) return null;
  let host: string;
  try {
    // "null" (a sandboxed frame, a file: page) fails the parse: never this site.
    host = new URL(origin).host;
  } catch {
    return origin;
  }
  const forwarded = headers['x-forwarded-host'];
  const own = [headers.host, ...(Array.isArray(forwarded) ? forwarded : (forwarded ?? '').split(','))]
    .map((value) => value?.trim().toLowerCase())
    .filter((value): value is string => !!value);
  return own.includes(host.toLowerCase()) ? null : origin;
}

/** True for a request that changes something and was sent by another site's page. */
export function isCrossSiteWrite(method: string, headers: IncomingHttpHeaders): boolean {
  return UNSAFE_METHODS.has(method.toUpperCase()) && crossSiteOrigin(headers) !== null;
}
