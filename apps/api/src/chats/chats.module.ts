import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { ChatsController } from './chats.controller.js';
import { ChatsRepository } from './chats.repository.js';
import { ChatsService } from './chats.service.js';

@Module({
  imports: [AgentsModule, RunsModule],
  controllers: [ChatsController],
  providers: [ChatsRepository, ChatsService],
})
export class ChatsModule {}
