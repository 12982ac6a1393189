import { Global, Module } from '@nestjs/common';
import { TenancyRepository } from './tenancy.repository.js';
import { WorkspaceAccess } from './workspace-access.js';

/** Membership checks every feature module uses; global so feature modules need not import it. */
@Global()
@Module({ providers: [TenancyRepository, WorkspaceAccess], exports: [WorkspaceAccess, TenancyRepository] })
export class TenancyCoreModule {}
