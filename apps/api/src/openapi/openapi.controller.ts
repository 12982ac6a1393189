import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import type { OpenApiDocument } from './openapi-document.js';
import { OpenApiService } from './openapi.service.js';

@Controller('api/docs')
export class OpenApiController {
  constructor(private readonly openApi: OpenApiService) {}

  @Public()
  @Get()
  @ApiRoute({ summary: 'This OpenAPI 3.1 document', tag: 'docs' })
  document(): OpenApiDocument {
    return this.openApi.document();
  }
}
