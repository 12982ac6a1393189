import { Module } from '@nestjs/common';
import { SignupRateLimiter } from '../auth/signup-rate-limiter.js';
import { MailModule } from '../mail/mail.module.js';
import { InvitationMailLimiter } from './invitation-mail-limiter.js';
import { InvitationsController } from './invitations.controller.js';
import { InvitationsRepository } from './invitations.repository.js';
import { InvitationsService } from './invitations.service.js';

/**
 * Workspace invitations. Exports InvitationsService for sign-up (AuthModule). Needs the global
 * TenancyCoreModule, AuditModule, InstanceSettingsModule and RedisModule (the look-up limit); MailModule
 * mails the links when the instance has a transport.
 */
@Module({
  imports: [MailModule],
  controllers: [InvitationsController],
  providers: [InvitationsService, InvitationsRepository, SignupRateLimiter, InvitationMailLimiter],
  exports: [InvitationsService],
})
export class InvitationsModule {}
