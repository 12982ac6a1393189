import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-strategy';
import { ApiError } from '../common/api-error.js';
import type { Principal } from './principal.js';
import { InvalidCredentials, RequestAuthenticator } from './request-authenticator.js';
import { privatePassport } from './run-strategy.js';

type Verify = (req: Request, done: (error: unknown, user?: Principal | false) => void) => void;

/** A passport strategy that hands the whole request to its verify function (cookie or bearer header). */
class RequestCredentialsStrategy extends Strategy {
  readonly name = 'lazyboy-request';

  constructor(private readonly verify: Verify) {
    super();
  }

  override authenticate(req: Request): void {
    this.verify(req, (error, user) => {
      if (error) this.error(error instanceof Error ? error : new Error(String(error)));
      else if (user) this.success(user);
      else this.fail(401);
    });
  }
}

/** Every request but public ones: the session cookie or `Authorization: Bearer lbt_…`. */
@Injectable()
export class SessionStrategy extends PassportStrategy(RequestCredentialsStrategy, 'lazyboy-request') {
  constructor(private readonly authenticator: RequestAuthenticator) {
    super();
  }

  async validate(req: Request): Promise<Principal> {
    let principal: Principal | null;
    try {
      principal = await this.authenticator.fromRequest(req);
    } catch (error) {
      if (error instanceof InvalidCredentials) throw new ApiError('UNAUTHENTICATED', `sign in again: ${error.message}`);
      throw error;
    }
    if (!principal) throw new ApiError('UNAUTHENTICATED', 'sign in first');
    return principal;
  }

  getPassportInstance() {
    return privatePassport();
  }
}
