import { Module } from '@nestjs/common';
import { ComputersModule } from '../computers/computers.module.js';
import { ViewerController } from './viewer.controller.js';
import { ViewerService } from './viewer.service.js';

/** Viewer heartbeat and viewer tickets (the web server proxies /view/* with them). */
@Module({ imports: [ComputersModule], controllers: [ViewerController], providers: [ViewerService], exports: [ViewerService] })
export class ViewerModule {}
