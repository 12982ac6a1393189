import { VaultModule } from '../vault/vault.module.js';
import { Module } from '@nestjs/common';
import { ComputersModule } from '../computers/computers.module.js';
import { ParkedRunExpiry } from './parked-run-expiry.js';
import { RunCreationRepository } from './run-creation.repository.js';
import { RunCreation } from './run-creation.service.js';
import { RunExecutor } from './run-executor.service.js';
import { RunMessagesRepository } from './run-messages.repository.js';
import { RunSignals } from './run-signals.js';
import { RunsController, WorkspaceRunsController } from './runs.controller.js';
import { RunsRepository } from './runs.repository.js';
import { RunsService } from './runs.service.js';

@Module({
  imports: [ComputersModule, VaultModule],
  controllers: [RunsController, WorkspaceRunsController],
  providers: [
    RunsRepository,
    RunCreationRepository,
    RunMessagesRepository,
    RunSignals,
    RunsService,
    RunCreation,
    RunExecutor,
    ParkedRunExpiry,
  ],
  exports: [RunsService, RunCreation, RunsRepository, RunExecutor],
})
export class RunsModule {}
