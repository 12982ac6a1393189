import { Injectable } from '@nestjs/common';
import { API_TOKEN_PREFIX } from '@lazyboy/contracts';
import type { Request } from 'express';
import { ApiTokensRepository } from './api-tokens.repository.js';
import { LoginSessionsRepository } from './login-sessions.repository.js';
import { SessionAuthenticator, type Principal } from './principal.js';
import { digestsEqual, sha256Hex } from './secrets.js';
import { decodeSessionCookie, sessionCookieFromHeader } from './session-cookie.js';

/** lastSeenAt / lastUsedAt move at most this often: a busy client does not write on every request. */
const TOUCH_INTERVAL_MS = 60_000;

/** Why a request carrying credentials was not authenticated (never shown in detail to the caller). */
export class InvalidCredentials extends Error {
  override readonly name = 'InvalidCredentials';
}

/**
 * Turns the credentials of a request into a Principal: `Authorization: Bearer lbt_…` (API tokens) or the
 * session cookie. A bearer header wins over a cookie, and a bad one is not silently replaced by the cookie.
 */
@Injectable()
export class RequestAuthenticator extends SessionAuthenticator {
  constructor(
    private readonly sessions: LoginSessionsRepository,
    private readonly tokens: ApiTokensRepository,
  ) {
    super();
  }

  /** null: the request carries no credentials at all. Throws InvalidCredentials for bad ones. */
  async fromRequest(req: Request): Promise<Principal | null> {
    const authorization = req.headers.authorization;
    if (authorization !== undefined) return this.fromAuthorization(authorization);
    const cookie = sessionCookieFromHeader(req.headers.cookie);
    if (cookie === undefined) return null;
    const principal = await this.fromSessionCookie(cookie);
    if (!principal) throw new InvalidCredentials('session expired or signed out');
    return principal;
  }

  /** The websocket handshake's way in: the same cookie as HTTP; null for anything but a live session. */
  async fromCookieHeader(cookieHeader: string | undefined): Promise<Principal | null> {
    return this.fromSessionCookie(sessionCookieFromHeader(cookieHeader));
  }

  async fromSessionCookie(raw: string | undefined): Promise<Principal | null> {
    const value = decodeSessionCookie(raw);
    if (!value) return null;
    const now = new Date();
    const session = await this.sessions.findActive(value.loginSessionId, now);
    if (!session || !digestsEqual(sha256Hex(value.secret), session.secretHash)) return null;
    if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
      await this.sessions.touch(session.id, now, TOUCH_INTERVAL_MS);
    }
    const { user } = session;
    return {
      userId: user.id,
      email: user.email,
      displayName: user.displayName,
      isAdmin: user.isAdmin,
      via: 'session',
      loginSessionId: session.id,
      tokenWorkspaceId: null,
    };
  }

  async fromAuthorization(header: string): Promise<Principal> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const token = match?.[1];
    if (!token?.startsWith(API_TOKEN_PREFIX)) throw new InvalidCredentials('expected Authorization: Bearer lbt_…');
    const now = new Date();
    const digest = sha256Hex(token);
    const row = await this.tokens.findActive(digest, now);
    // The lookup is by digest; comparing again in constant time keeps it honest if the lookup ever changes.
    if (!row || !digestsEqual(digest, row.tokenHash)) throw new InvalidCredentials('unknown, expired or revoked token');
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      await this.tokens.touch(row.id, now, TOUCH_INTERVAL_MS);
    }
    return {
      userId: row.user.id,
      email: row.user.email,
      displayName: row.user.displayName,
      isAdmin: row.user.isAdmin,
      via: 'token',
      tokenWorkspaceId: row.workspaceId,
    };
  }
}
