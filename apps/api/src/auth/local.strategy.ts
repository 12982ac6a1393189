import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-local';
import { AuthService } from './auth.service.js';
import { clientIpOf } from './client-ip.js';
import { knownDeviceFromHeader } from './known-device.js';
import type { Principal } from './principal.js';
import { privatePassport } from './run-strategy.js';

/** Email + password sign-in (passport-local), for POST /api/auth/login only. */
@Injectable()
export class LocalStrategy extends PassportStrategy(Strategy, 'local') {
  constructor(private readonly auth: AuthService) {
    super({ usernameField: 'email', passwordField: 'password', passReqToCallback: true, session: false });
  }

  validate(req: Request, email: string, password: string): Promise<Principal> {
    return this.auth.verifyCredentials(email, password, {
      ip: clientIpOf(req),
      userAgent: req.headers['user-agent'],
      knownDevice: knownDeviceFromHeader(req.headers.cookie),
    });
  }

  /** Called by the mixin's constructor: register on a private instance, not the process-wide one. */
  getPassportInstance() {
    return privatePassport();
  }
}
