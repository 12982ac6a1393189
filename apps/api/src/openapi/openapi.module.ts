import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { OpenApiController } from './openapi.controller.js';
import { OpenApiService } from './openapi.service.js';

/** GET /api/docs: the OpenAPI 3.1 document of every controller route of the application. */
@Module({ imports: [DiscoveryModule], controllers: [OpenApiController], providers: [OpenApiService], exports: [OpenApiService] })
export class OpenApiModule {}
