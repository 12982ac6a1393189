import { Module } from '@nestjs/common';
import { ComputersModule } from '../computers/computers.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { TakeoverController } from './takeover.controller.js';
import { TakeoverService } from './takeover.service.js';

@Module({ imports: [ComputersModule, RunsModule], controllers: [TakeoverController], providers: [TakeoverService] })
export class TakeoverModule {}
