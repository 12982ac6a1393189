import { Module } from '@nestjs/common';
import { Leadership } from './leadership.service.js';

/** Leader election over Redis for work that must run on one replica only (idle loop, schedule tick). */
@Module({ providers: [Leadership], exports: [Leadership] })
export class LeadershipModule {}
