import { Module } from '@nestjs/common';
import { BotsController, WorkspaceBotsController } from './bots.controller.js';
import { BotsRepository } from './bots.repository.js';
import { BotsService } from './bots.service.js';

/** Agents (bots): the HTTP routes, and BotsService for the sessions and runs modules. */
@Module({
  controllers: [WorkspaceBotsController, BotsController],
  providers: [BotsRepository, BotsService],
  exports: [BotsService],
})
export class BotsModule {}
