import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module.js';
import { InvitationsModule } from '../invitations/invitations.module.js';
import { ApiAuthGuard } from './api-auth.guard.js';
import { ApiTokensController } from './api-tokens.controller.js';
import { ApiTokensRepository } from './api-tokens.repository.js';
import { ApiTokensService } from './api-tokens.service.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { KnownDevices } from './known-device.js';
import { LocalAuthGuard } from './local-auth.guard.js';
import { LocalStrategy } from './local.strategy.js';
import { LoginRateLimiter } from './login-rate-limiter.js';
import { SignupRateLimiter } from './signup-rate-limiter.js';
import { LoginSessionsRepository } from './login-sessions.repository.js';
import { SessionAuthenticator } from './principal.js';
import { RequestAuthenticator } from './request-authenticator.js';
import { SessionStrategy } from './session.strategy.js';

/**
 * Sign-up, sign-in (session cookie), API tokens, and the global guard that authenticates every route
 * but @Public() ones. Exports SessionAuthenticator for the websocket handshake. Needs the global
 * AuditModule, TenancyCoreModule and InstanceSettingsModule.
 */
@Module({
  imports: [AccountsModule, InvitationsModule],
  controllers: [AuthController, ApiTokensController],
  providers: [
    AuthService,
    ApiTokensService,
    ApiTokensRepository,
    LoginSessionsRepository,
    LoginRateLimiter,
    KnownDevices,
    SignupRateLimiter,
    RequestAuthenticator,
    { provide: SessionAuthenticator, useExisting: RequestAuthenticator },
    LocalStrategy,
    SessionStrategy,
    LocalAuthGuard,
    { provide: APP_GUARD, useClass: ApiAuthGuard },
  ],
  exports: [SessionAuthenticator],
})
export class AuthModule {}
