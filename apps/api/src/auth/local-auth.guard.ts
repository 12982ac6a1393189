import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { loginRequestSchema } from '@lazyboy/contracts';
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { parseInput } from '../common/zod-params.js';
import { WRONG_CREDENTIALS } from './auth.service.js';
import { LocalStrategy } from './local.strategy.js';
import type { Principal } from './principal.js';
import { runStrategy } from './run-strategy.js';

/**
 * Runs passport-local for the login route. The body is validated (and the email lower-cased) first, so
 * passport sees clean input and a malformed body is 400 VALIDATION_FAILED like everywhere else.
 */
@Injectable()
export class LocalAuthGuard implements CanActivate {
  constructor(private readonly strategy: LocalStrategy) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { user?: Principal }>();
    req.body = parseInput(loginRequestSchema, req.body ?? {}, 'body');
    const principal = await runStrategy(this.strategy, req, http.getResponse<Response>());
    if (!principal) throw new ApiError('UNAUTHENTICATED', WRONG_CREDENTIALS);
    req.user = principal;
    return true;
  }
}
