import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import {
  FORWARDED_CLIENT_HEADER,
  forwardedClientAddress,
  normaliseAddress,
  TrustedProxies,
  verifyForwardedClient,
} from '@lazyboy/contracts/node';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import type { ApiConfig } from '../config/api-config.js';

/** Each request's client address, worked out once as it arrives (clientAddressMiddleware). */
const addresses = new WeakMap<IncomingMessage, string>();

/**
 * Who the caller is, for the rate limits and the audit log. Any local process can reach the API, so a
 * loopback caller proves nothing; the address is, in this order:
 * - the one the web server names in its signed statement (FORWARDED_CLIENT_HEADER, keyed with
 *   LAZYBOY_INTERNAL_SECRET and at most a minute old): the browser behind it;
 * - for a caller in LAZYBOY_TRUSTED_PROXIES (a reverse proxy directly in front of the API), the first
 *   X-Forwarded-For hop from the right that is not such a proxy;
 * - the caller's own: the CLI, curl with a bearer token, and anyone whose statement does not verify.
 * Express's own `trust proxy` stays off (bootstrap.ts): nothing else reads forwarded headers.
 */
export class ClientAddressResolver {
  private readonly trusted: TrustedProxies;

  constructor(private readonly config: Pick<ApiConfig, 'LAZYBOY_INTERNAL_SECRET' | 'LAZYBOY_TRUSTED_PROXIES'>) {
    this.trusted = new TrustedProxies(config.LAZYBOY_TRUSTED_PROXIES);
  }

  resolve(req: Pick<IncomingMessage, 'headers' | 'socket'>): string {
    const stated = verifyForwardedClient(req.headers[FORWARDED_CLIENT_HEADER], this.config.LAZYBOY_INTERNAL_SECRET);
    if (stated !== null) return normaliseAddress(stated);
    return forwardedClientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.trusted);
  }
}

/** Express middleware, ahead of every route: works out the request's client address once. */
export function clientAddressMiddleware(resolver: ClientAddressResolver) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    addresses.set(req, resolver.resolve(req));
    next();
  };
}

/** The caller's address (see ClientAddressResolver). */
export function clientIpOf(req: Request): string | undefined {
  return addresses.get(req) ?? (req.socket.remoteAddress ? normaliseAddress(req.socket.remoteAddress) : undefined);
}

/** The caller's address, for the audit log and rate limits. */
export const ClientIp = createParamDecorator((_: unknown, ctx: ExecutionContext) =>
  clientIpOf(ctx.switchToHttp().getRequest<Request>()),
);
