import { Global, Module } from '@nestjs/common';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';

/** The audit log; global so every feature module can record without importing it. */
@Global()
@Module({ providers: [AuditRepository, AuditService], exports: [AuditService] })
export class AuditModule {}
