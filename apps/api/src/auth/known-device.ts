import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { parseCookie, stringifySetCookie } from 'cookie';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { deriveKey } from '../crypto/secret-box.js';

// A browser that has signed in to an account before carries a signed "known device" cookie for that
// account (OWASP's device cookies). Its sign-ins are counted on a key of their own, so a stranger's wrong
// guesses, which hold the account's other sign-ins back, never hold back its owner's own browser.

export const KNOWN_DEVICE_COOKIE = 'lazyboy_device';
/** The cookie goes to the sign-in route only: nothing else needs it. */
const COOKIE_PATH = '/api/auth/login';
/** How long a browser stays known after its last sign-in. */
export const KNOWN_DEVICE_MAX_AGE_SECONDS = 365 * 24 * 3_600;

/** `<device id>.<issued at, unix s>.<HMAC-SHA256 of id, time and email, base64url>`. */
const COOKIE_VALUE = /^([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** A verified known-device cookie: the browser signed in as the email it was checked against. */
export interface KnownDevice {
  /** Names the device's own sign-in count. */
  id: string;
}

@Injectable()
export class KnownDevices {
  private readonly key: Buffer;

  constructor(@Inject(API_CONFIG) config: ApiConfig) {
    // Its own key from the master key: a leaked LAZYBOY_INTERNAL_SECRET (the web server's) forges none.
    this.key = deriveKey(config.LAZYBOY_VAULT_KEY, 'known-device');
  }

  /** A fresh cookie value for a browser that just signed in as `email`. */
  issue(email: string, now = Date.now()): string {
    const id = randomBytes(16).toString('base64url');
    const issuedAt = Math.floor(now / 1_000);
    return `${id}.${issuedAt}.${this.mac(id, issuedAt, email)}`;
  }

  /** The device, when `value` is a cookie this API issued for `email` and it has not expired; else null. */
  verify(value: string | undefined, email: string, now = Date.now()): KnownDevice | null {
    const match = value === undefined ? null : COOKIE_VALUE.exec(value);
    if (!match) return null;
    const [, id = '', issued = '', given = ''] = match;
    const issuedAt = Number(issued);
    const age = Math.floor(now / 1_000) - issuedAt;
    if (age < -60 || age > KNOWN_DEVICE_MAX_AGE_SECONDS) return null;
    const expected = Buffer.from(this.mac(id, issuedAt, email), 'base64url');
    const received = Buffer.from(given, 'base64url');
    return received.length === expected.length && timingSafeEqual(received, expected) ? { id } : null;
  }

  private mac(id: string, issuedAt: number, email: string): string {
    return createHmac('sha256', this.key).update(`${id}\n${issuedAt}\n${email}`).digest('base64url');
  }
}

/** The known-device cookie's value in a Cookie request header, if any. */
export function knownDeviceFromHeader(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  return parseCookie(cookieHeader)[KNOWN_DEVICE_COOKIE];
}

/** httpOnly, SameSite=Lax, Secure over HTTPS, like the session cookie; sent to the sign-in route only. */
export function knownDeviceCookieHeader(value: string, secure: boolean): string {
  return stringifySetCookie({
    name: KNOWN_DEVICE_COOKIE,
    value,
    httpOnly: true,
    sameSite: 'lax',
    path: COOKIE_PATH,
    secure,
    maxAge: KNOWN_DEVICE_MAX_AGE_SECONDS,
  });
}
