import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import {
  localModelServerListViewSchema,
  modelListQuerySchema,
  modelListViewSchema,
  modelTestRequestSchema,
  modelTestViewSchema,
  type LocalModelServerListView,
  type ModelListQuery,
  type ModelListView,
  type ModelTestRequest,
  type ModelTestView,
} from '@lazyboy/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody, ZodQuery } from '../common/zod-params.js';
import { WorkspaceModelService } from './workspace-model.service.js';

const tag = 'workspaces';

/** The settings page's checks of a workspace's model (owners and admins); the settings change in PATCH /api/workspaces/:id. */
@Controller('api/workspaces/:workspaceId/model')
export class WorkspaceModelController {
  constructor(private readonly model: WorkspaceModelService) {}

  @Get('models')
  @ApiRoute({
    summary:
      "The models an endpoint lists (its /models), or the saved settings' endpoint's; failures carry the provider's own text",
    response: modelListViewSchema,
    tag,
  })
  models(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @ZodQuery(modelListQuerySchema) query: ModelListQuery,
  ): Promise<ModelListView> {
    return this.model.models(principal, workspaceId, query);
  }

  @Post('test')
  @HttpCode(200)
  @ApiRoute({
    summary: 'One small real request with the given or saved settings: ok, or the provider’s HTTP status and text',
    response: modelTestViewSchema,
    tag,
  })
  test(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
    @ZodBody(modelTestRequestSchema) body: ModelTestRequest,
  ): Promise<ModelTestView> {
    return this.model.test(principal, workspaceId, body);
  }

  @Get('local-servers')
  @ApiRoute({
    summary: 'Model servers answering on their usual loopback ports (only where the instance allows local servers)',
    response: localModelServerListViewSchema,
    tag,
  })
  localServers(
    @CurrentPrincipal() principal: Principal,
    @IdParam('workspaceId') workspaceId: string,
  ): Promise<LocalModelServerListView> {
    return this.model.localServers(principal, workspaceId);
  }
}
