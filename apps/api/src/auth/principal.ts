import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '../common/api-error.js';

/** Who is calling: a signed-in browser (session cookie) or a bearer API token. */
export interface Principal {
  userId: string;
  email: string;
  displayName: string;
  /** Instance administrator (the admin dashboard). */
  isAdmin: boolean;
  via: 'session' | 'token';
  /** The LoginSession behind a cookie (logout revokes it). */
  loginSessionId?: string;
  /** A token limited to one workspace; null or absent: every workspace of the user. */
  tokenWorkspaceId?: string | null;
}

export const PUBLIC_ROUTE = 'lazyboy:public';
/** The route needs no authentication (health, sign-up, login). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

export const INTERNAL_ROUTE = 'lazyboy:internal';
/**
 * The route serves the web server, not people: no sign-in, but the shared LAZYBOY_INTERNAL_SECRET in the
 * x-lazyboy-internal header (403 FORBIDDEN without it).
 */
export const Internal = () => SetMetadata(INTERNAL_ROUTE, true);

export const ADMIN_ROUTE = 'lazyboy:admin';
/** The route is for instance administrators only (403 FORBIDDEN otherwise). */
export const AdminOnly = () => SetMetadata(ADMIN_ROUTE, true);

/** The authenticated principal of the request (the global guard put it there). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<Request & { user?: Principal }>().user;
  if (!principal) throw new ApiError('UNAUTHENTICATED', 'sign in first');
  return principal;
});

/** Name of the httpOnly session cookie. */
export const SESSION_COOKIE = 'lazyboy_session';

/**
 * Resolves a Cookie header to a principal: the websocket gateway authenticates its handshake with the same
 * session cookie as HTTP. Implemented by the auth module.
 */
export abstract class SessionAuthenticator {
  abstract fromCookieHeader(cookieHeader: string | undefined): Promise<Principal | null>;
}
