import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { SessionsController } from './sessions.controller.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';

@Module({
  imports: [BotsModule, RunsModule],
  controllers: [SessionsController],
  providers: [SessionsRepository, SessionsService],
})
export class SessionsModule {}
