import { describe, expect, it } from '@jest/globals';
import { loginSiteOf, mayFillLogin } from './login-site.js';

describe('login sites (public-suffix list)', () => {
  it('names a URL by its registrable domain, private suffixes included', () => {
    expect(loginSiteOf('https://login.example.com/sign-in?x=1')).toBe('example.com');
    expect(loginSiteOf('https://accounts.google.co.uk')).toBe('google.co.uk');
    expect(loginSiteOf('https://a.github.io/')).toBe('a.github.io');
    expect(loginSiteOf('http://bank.localhost:8080/')).toBe('bank.localhost');
    expect(loginSiteOf('http://203.0.113.2:8080/login')).toBe('203.0.113.2');
    expect(loginSiteOf('http://[::1]:80/')).toBe('[::1]');
    expect(loginSiteOf('file:///etc/passwd')).toBeNull();
    expect(loginSiteOf('not a url')).toBeNull();
  });

  it('fills on the same site only', () => {
    expect(mayFillLogin('https://example.com', 'https://login.example.com/next')).toBe(true);
    expect(mayFillLogin('https://login.example.com', 'https://www.example.com/')).toBe(true);
    expect(mayFillLogin('https://example.com', 'https://login.example.com.evil.test/')).toBe(false);
    expect(mayFillLogin('https://a.github.io', 'https://b.github.io/login')).toBe(false);
    expect(mayFillLogin('https://example.com', 'https://example.co/')).toBe(false);
    expect(mayFillLogin('http://203.0.113.2:8080', 'http://203.0.113.2:9090/login')).toBe(true);
    expect(mayFillLogin('http://203.0.113.2:8080', 'http://203.0.113.3:8080/login')).toBe(false);
  });

  it('never fills an https account into an http page, nor into a page that is not http(s)', () => {
    expect(mayFillLogin('https://example.com', 'http://example.com/login')).toBe(false);
    expect(mayFillLogin('http://example.com', 'https://example.com/login')).toBe(true);
    expect(mayFillLogin('https://example.com', 'data:text/html,<input type=password>')).toBe(false);
    expect(mayFillLogin('https://example.com', 'about:blank')).toBe(false);
  });
});
