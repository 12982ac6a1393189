import { describe, expect, it } from '@jest/globals';
import { crossSiteOrigin, isCrossSiteWrite } from './same-origin.js';

describe('crossSiteOrigin', () => {
  it('lets requests without an Origin through: the CLI, the web server, curl', () => {
    expect(crossSiteOrigin({ host: 'lazyboy.home:3101' })).toBeNull();
  });

  it("lets a page of the request's own address through, directly or behind a proxy", () => {
    expect(crossSiteOrigin({ host: 'lazyboy.home:3101', origin: 'http://lazyboy.home:3101' })).toBeNull();
    expect(crossSiteOrigin({ host: 'LazyBoy.Home:3101', origin: 'http://lazyboy.home:3101' })).toBeNull();
    expect(
      crossSiteOrigin({
        host: '127.0.0.1:3101',
        origin: 'https://lazyboy.example.org',
        'x-forwarded-host': 'lazyboy.example.org',
      }),
    ).toBeNull();
  });

  it("trusts the browser's Sec-Fetch-Site over any address, behind any proxy", () => {
    const proxied = { host: 'upstream:3101', origin: 'https://lazyboy.example.org' };
    expect(crossSiteOrigin(proxied)).toBe('https://lazyboy.example.org');
    expect(crossSiteOrigin({ ...proxied, 'sec-fetch-site': 'same-origin' })).toBeNull();
    expect(crossSiteOrigin({ ...proxied, 'sec-fetch-site': 'none' })).toBeNull();
    // Another port of the same host is the same site, not the same origin.
    const sameSite = { host: 'lazyboy.home:3101', origin: 'http://lazyboy.home:8080', 'sec-fetch-site': 'same-site' };
    expect(crossSiteOrigin(sameSite)).toBe('http://lazyboy.home:8080');
    expect(crossSiteOrigin({ host: 'lazyboy.home:3101', 'sec-fetch-site': 'cross-site' })).toBe('cross-site');
    // A matching Origin does not outvote the browser's own word.
    expect(crossSiteOrigin({ host: 'a:1', origin: 'http://a:1', 'sec-fetch-site': 'cross-site' })).toBe('http://a:1');
  });

  it('names the origin of another site, another port of the same host, or an opaque page', () => {
    expect(crossSiteOrigin({ host: 'lazyboy.home:3101', origin: 'http://evil.example' })).toBe('http://evil.example');
    expect(crossSiteOrigin({ host: 'lazyboy.home:3101', origin: 'http://lazyboy.home:8080' })).toBe('http://lazyboy.home:8080');
    expect(crossSiteOrigin({ host: 'lazyboy.home:3101', origin: 'null' })).toBe('null');
    expect(crossSiteOrigin({ origin: 'http://lazyboy.home:3101' })).toBe('http://lazyboy.home:3101');
  });
});

describe('isCrossSiteWrite', () => {
  it('concerns only the methods that change something', () => {
    const headers = { host: 'lazyboy.home:3101', origin: 'http://evil.example' };
    expect(isCrossSiteWrite('GET', headers)).toBe(false);
    expect(isCrossSiteWrite('HEAD', headers)).toBe(false);
    for (const method of ['POST', 'put', 'PATCH', 'DELETE']) expect(isCrossSiteWrite(method, headers)).toBe(true);
  });
});
