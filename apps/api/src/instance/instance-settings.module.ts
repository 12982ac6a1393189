import { Global, Module } from '@nestjs/common';
import { InstanceSettingsRepository } from './instance-settings.repository.js';
import { InstanceSettingsService } from './instance-settings.service.js';

/**
 * The instance's own settings: global, because the agents' routes and the run executor read them and the
 * admin routes change them (and the admin module imports the runs module). Needs the global AuditModule.
 */
@Global()
@Module({ providers: [InstanceSettingsRepository, InstanceSettingsService], exports: [InstanceSettingsService] })
export class InstanceSettingsModule {}
