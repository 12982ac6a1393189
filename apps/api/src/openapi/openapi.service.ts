import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { collectApiRoutes } from './api-routes.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document.js';

const API_VERSION = '0.1.0';

@Injectable()
export class OpenApiService {
  private cached?: OpenApiDocument;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  /** Built on first use, when every module's controllers exist; routes never change while running. */
  document(): OpenApiDocument {
    this.cached ??= buildOpenApiDocument(collectApiRoutes(this.discovery, this.scanner, this.reflector), API_VERSION);
    return this.cached;
  }
}
