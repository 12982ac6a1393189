import { Global, Module } from '@nestjs/common';
import { LOCAL_MODEL_SERVERS } from '@lazyboy/model';
import { ModelChain } from './model-chain.js';
import { ModelKeys } from './model-keys.js';
import { WorkspaceModelController } from './workspace-model.controller.js';
import { WorkspaceModelRepository } from './workspace-model.repository.js';
import { LOCAL_MODEL_SERVER_CANDIDATES, WorkspaceModelService } from './workspace-model.service.js';

/**
 * Model keys, the credential chain and a workspace's model checks. Global: agents, workspaces and the run
 * executor all resolve their model here. Needs the global InstanceSettingsModule and TenancyCoreModule.
 */
@Global()
@Module({
  controllers: [WorkspaceModelController],
  providers: [
    ModelKeys,
    ModelChain,
    WorkspaceModelRepository,
    WorkspaceModelService,
    { provide: LOCAL_MODEL_SERVER_CANDIDATES, useValue: LOCAL_MODEL_SERVERS },
  ],
  exports: [ModelKeys, ModelChain, WorkspaceModelRepository, WorkspaceModelService],
})
export class ModelModule {}
