import { Module } from '@nestjs/common';
import { AgentsController, WorkspaceAgentsController } from './agents.controller.js';
import { AgentsRepository } from './agents.repository.js';
import { AgentsService } from './agents.service.js';

/** Agents: the HTTP routes, and AgentsService for the chats and runs modules. */
@Module({
  controllers: [WorkspaceAgentsController, AgentsController],
  providers: [AgentsRepository, AgentsService],
  exports: [AgentsService],
})
export class AgentsModule {}
