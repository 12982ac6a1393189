import { Global, Module } from '@nestjs/common';
import { MembershipChanges } from './membership-changes.js';
import { TenancyRepository } from './tenancy.repository.js';
import { WorkspaceAccess } from './workspace-access.js';

/**
 * Membership checks every feature module uses, and the membership writes the workspace routes and the admin
 * dashboard share; global so feature modules need not import it. Needs the global AuditModule and RealtimeModule.
 */
@Global()
@Module({
  providers: [TenancyRepository, WorkspaceAccess, MembershipChanges],
  exports: [WorkspaceAccess, TenancyRepository, MembershipChanges],
})
export class TenancyCoreModule {}
