import { Module } from '@nestjs/common';
import { ComputersModule } from '../computers/computers.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { AdminController } from './admin.controller.js';
import { AdminRepository } from './admin.repository.js';
import { AdminService } from './admin.service.js';

/** /api/admin: the instance administrators' dashboard (AuditModule and TenancyCoreModule are global). */
@Module({
  imports: [ComputersModule, RunsModule],
  controllers: [AdminController],
  providers: [AdminRepository, AdminService],
  exports: [AdminService],
})
export class AdminModule {}
