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
