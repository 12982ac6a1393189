import { Module } from '@nestjs/common';
import { SignupRateLimiter } from '../auth/signup-rate-limiter.js';
import { InvitationsController } from './invitations.controller.js';
import { InvitationsRepository } from './invitations.repository.js';
import { InvitationsService } from './invitations.service.js';

/**
 * Workspace invitations. Exports InvitationsService for sign-up (AuthModule). Needs the global
 * TenancyCoreModule, AuditModule, InstanceSettingsModule and RedisModule (the look-up limit).
 */
@Module({
  controllers: [InvitationsController],
  providers: [InvitationsService, InvitationsRepository, SignupRateLimiter],
  exports: [InvitationsService],
})
export class InvitationsModule {}
