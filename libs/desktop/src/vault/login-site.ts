import { parse } from 'tldts';

// Which pages a saved login may be typed into. A site is a registrable domain by the public-suffix list,
// private suffixes included (a.github.io and b.github.io belong to different people), so
// login.example.com matches an account of example.com while login.example.com.evil.test does not. A host
// with no registrable domain (an IP address, a single-label LAN name) is its own site.

/** The site of an http(s) URL, or null when the URL is not http(s) or has no host. */
export function loginSiteOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.hostname === '') return null;
  const host = parsed.hostname.toLowerCase();
  const info = parse(host, { allowPrivateDomains: true });
  if (info.isIp) return host;
  return info.domain ?? host;
}

/**
 * Whether a login saved for `accountOrigin` may be typed into a page at `pageUrl`: the same site, and
 * never an http page for an https account (anyone on the network path could read a downgraded form).
 */
export function mayFillLogin(accountOrigin: string, pageUrl: string): boolean {
  const account = loginSiteOf(accountOrigin);
  const page = loginSiteOf(pageUrl);
  if (account === null || page === null || account !== page) return false;
  return !(new URL(accountOrigin).protocol === 'https:' && new URL(pageUrl).protocol !== 'https:');
}
