import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { ApiError, forbidden } from '../common/api-error.js';
import { ADMIN_ROUTE, PUBLIC_ROUTE, type Principal } from './principal.js';
import { runStrategy } from './run-strategy.js';
import { SessionStrategy } from './session.strategy.js';

/**
 * The global guard: every HTTP route needs a signed-in principal (session cookie or API token) unless
 * it is @Public(); @AdminOnly() routes also need an instance administrator, not through a workspace-limited
 * token. Puts the Principal on
 * req.user. Websocket events pass: the realtime gateway authenticates its handshake itself
 * (SessionAuthenticator) and checks membership per subscription.
 */
@Injectable()
export class ApiAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly strategy: SessionStrategy,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean | undefined>(PUBLIC_ROUTE, targets)) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { user?: Principal }>();
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
