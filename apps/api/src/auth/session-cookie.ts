import { parseCookie, stringifySetCookie } from 'cookie';
import { z } from 'zod';
import { SESSION_COOKIE } from './principal.js';

export interface SessionCookieValue {
  loginSessionId: string;
  secret: string;
}

/** `<loginSessionId>.<secret>`: the id finds the row, the secret proves possession. */
export function encodeSessionCookie(value: SessionCookieValue): string {
  return `${value.loginSessionId}.${value.secret}`;
}

const loginSessionIdSchema = z.uuid();

export function decodeSessionCookie(raw: string | undefined): SessionCookieValue | null {
  if (!raw) return null;
  const dot = raw.indexOf('.');
  if (dot < 0) return null;
  const loginSessionId = raw.slice(0, dot);
  const secret = raw.slice(dot + 1);
  if (!loginSessionIdSchema.safeParse(loginSessionId).success || !/^[\w-]{16,200}$/.test(secret)) return null;
  return { loginSessionId, secret };
}

/** The session cookie's value in a Cookie request header, if any. */
export function sessionCookieFromHeader(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  return parseCookie(cookieHeader)[SESSION_COOKIE];
}

export interface CookieOptions {
  secure: boolean;
  maxAgeSeconds: number;
}

/**
 * httpOnly (no script reads it), SameSite=Lax (other sites' forms and fetches do not carry it), the whole
 * site, Secure when served over HTTPS.
 */
export function setSessionCookieHeader(value: string, options: CookieOptions): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value,
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: options.secure,
    maxAge: options.maxAgeSeconds,
  });
}

export function clearSessionCookieHeader(secure: boolean): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value: '',
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure,
    maxAge: 0,
    expires: new Date(0),
  });
}
