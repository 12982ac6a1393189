import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { HealthRepository } from './health.repository.js';
import { ReadinessService } from './readiness.service.js';

@Module({ controllers: [HealthController], providers: [HealthRepository, ReadinessService] })
export class HealthModule {}
