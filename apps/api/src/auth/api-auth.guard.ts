import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { ApiError, forbidden } from '../common/api-error.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { INTERNAL_SECRET_HEADER, isCrossSiteWrite } from '@lazyboy/contracts';
import { ADMIN_ROUTE, INTERNAL_ROUTE, PUBLIC_ROUTE, type Principal } from './principal.js';
import { runStrategy } from './run-strategy.js';
import { digestsEqual, sha256Hex } from './secrets.js';
import { SessionStrategy } from './session.strategy.js';

/**
 * The global guard: every HTTP route needs a signed-in principal (session cookie or API token) unless
 * it is @Public(); @AdminOnly() routes also need an instance administrator, not through a workspace-limited
 * token; @Internal() routes need the web server's shared secret instead of a person. A write sent by another
 * site's page is refused before any of that (libs/contracts same-origin.ts). Puts the Principal on
 * req.user. Websocket events pass: the realtime gateway authenticates its handshake itself
 * (SessionAuthenticator) and checks membership per subscription.
 */
@Injectable()
export class ApiAuthGuard implements CanActivate {
  private readonly internalDigest: string;

  constructor(
    private readonly reflector: Reflector,
    private readonly strategy: SessionStrategy,
    @Inject(API_CONFIG) config: ApiConfig,
  ) {
    this.internalDigest = sha256Hex(config.LAZYBOY_INTERNAL_SECRET);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { user?: Principal }>();
    const { method, headers } = req;
    // Public routes too: signing someone into an account of the attacker's choosing is an attack of its own.
    if (isCrossSiteWrite(method, headers)) throw forbidden('a request from another site is refused');
    if (this.reflector.getAllAndOverride<boolean | undefined>(PUBLIC_ROUTE, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean | undefined>(INTERNAL_ROUTE, targets)) {
      const secret = headers[INTERNAL_SECRET_HEADER];
      // Digests of equal length: the comparison takes as long whatever the caller sent.
      if (typeof secret !== 'string' || !digestsEqual(sha256Hex(secret), this.internalDigest))
        throw forbidden('this route is for the web server only');
      return true;
    }
    const principal = await runStrategy(this.strategy, req, http.getResponse<Response>());
    if (!principal) throw new ApiError('UNAUTHENTICATED', 'sign in first');
    req.user = principal;
    if (this.reflector.getAllAndOverride<boolean | undefined>(ADMIN_ROUTE, targets)) {
      if (!principal.isAdmin) throw forbidden('this is for instance administrators only');
      // A token limited to one workspace was handed out for that workspace, not for the whole instance.
      if (principal.tokenWorkspaceId) throw forbidden('an API token limited to one workspace cannot use admin routes');
    }
    return true;
  }
}
