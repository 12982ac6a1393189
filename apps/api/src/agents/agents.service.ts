import { Injectable } from '@nestjs/common';
import type { AgentView, CreateAgentRequest, MembershipRole, UpdateAgentRequest } from '@lazyboy/contracts';
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { AuditService, type AuditEntry } from '../audit/audit.service.js';
import type { Principal } from '../auth/principal.js';
import { conflict, notFound } from '../common/api-error.js';
import type { Agent } from '../persistence/generated/client.js';
import { InstanceSettingsService } from '../instance/instance-settings.service.js';
import { ModelChain, type ModelLinkRow } from '../model/model-chain.js';
import { ModelKeys } from '../model/model-keys.js';
import {
  assertAllowedBaseUrl,
  assertKeyHasEndpoint,
  assertMayChangeModelSettings,
  dropsStoredKey,
  namesEndpoint,
} from '../model/model-settings-rules.js';
import { WorkspaceModelRepository } from '../model/workspace-model.repository.js';
import { hasRole, WorkspaceAccess } from '../tenancy/workspace-access.js';
import { AgentsRepository, NAME_TAKEN, type AgentChanges } from './agents.repository.js';
import { mergeModelSettings, modelSettingsOf, toAgentView } from './agent-view.js';

/** Agents of a workspace: CRUD for the API, each view saying whether the agent has a usable model. */
@Injectable()
export class AgentsService {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly access: WorkspaceAccess,
    private readonly instance: InstanceSettingsService,
    private readonly modelKeys: ModelKeys,
    private readonly chain: ModelChain,
    private readonly workspaces: WorkspaceModelRepository,
    private readonly audit: AuditService,
  ) {}

  async list(principal: Principal, workspaceId: string): Promise<AgentView[]> {
    const role = await this.access.require(principal, workspaceId);
    const agents = await this.agents.listInWorkspace(workspaceId);
    return this.views(workspaceId, role, agents);
  }

  async create(principal: Principal, workspaceId: string, request: CreateAgentRequest): Promise<AgentView> {
    const role = await this.access.require(principal, workspaceId);
    if (request.modelSettings && Object.keys(request.modelSettings).length > 0) {
      assertMayChangeModelSettings(role);
      assertAllowedBaseUrl(request.modelSettings, await this.instance.modelEndpointPolicy(), 'modelSettings.baseUrl');
    }
    const created = await this.agents.create({
      workspaceId,
      name: request.name,
      avatarSeed: request.avatarSeed ?? randomBytes(8).toString('hex'),
      instructions: request.instructions ?? '',
      computerMode: request.computerMode ?? 'team',
      modelSettings: mergeModelSettings({}, request.modelSettings ?? {}),
      createdById: principal.userId,
    });
    if (created === NAME_TAKEN) throw nameTaken(request.name);
    return this.view(principal, created);
  }

  /** The agent if the principal may see it; 404 NOT_FOUND for foreign and missing ids alike. */
  async getForPrincipal(principal: Principal, agentId: string): Promise<AgentView> {
    return this.view(principal, await this.visibleRow(principal, agentId));
  }

  /**
   * Members may rename an agent and change its instructions, avatar and computer mode; its model settings
   * and key only owners and admins (403, and nothing changes). A new provider or base URL drops the stored
   * key unless the same request brings one: a key never follows its agent to another endpoint. A key needs
   * the agent's own provider or base URL (400 naming modelApiKey otherwise), and settings that stop naming
   * one drop it: an inherited endpoint is the workspace admin's to change. One audit row per model change,
   * never with the key.
   */
  async update(principal: Principal, agentId: string, request: UpdateAgentRequest, ip?: string): Promise<AgentView> {
    const current = await this.visibleRow(principal, agentId);
    const changes: AgentChanges = {
      name: request.name,
      avatarSeed: request.avatarSeed,
      instructions: request.instructions,
      computerMode: request.computerMode,
    };
    if (request.modelSettings !== undefined || request.modelApiKey !== undefined) {
      assertMayChangeModelSettings(await this.access.require(principal, current.workspaceId));
    }
    const stored = modelSettingsOf(current.modelSettings);
    const next = request.modelSettings ?? stored;
    if (request.modelApiKey) assertKeyHasEndpoint(next, 'modelApiKey');
    const audits: AuditEntry[] = [];
    const entry = (action: string, details: AuditEntry['details'] = {}): AuditEntry => ({
      workspaceId: current.workspaceId,
      actorUserId: principal.userId,
      action,
      targetType: 'agent',
      targetId: current.id,
      details,
      ip,
    });
    let hasKey = current.modelApiKeyCipher !== null;
    if (request.modelSettings) {
      assertAllowedBaseUrl(request.modelSettings, await this.instance.modelEndpointPolicy(), 'modelSettings.baseUrl');
      changes.modelSettings = mergeModelSettings(current.modelSettings, request.modelSettings);
      if (!isDeepStrictEqual(stored, request.modelSettings)) {
        audits.push(entry('agent.model_settings_change', { settings: request.modelSettings, from: stored }));
      }
      const keyInRequest = request.modelApiKey !== undefined;
      if (hasKey && !keyInRequest && (dropsStoredKey(stored, request.modelSettings, false) || !namesEndpoint(next))) {
        changes.modelApiKeyCipher = null;
        hasKey = false;
        audits.push(entry('agent.model_key_remove', { reason: 'endpoint_changed' }));
      }
    }
    if (request.modelApiKey === null) {
      changes.modelApiKeyCipher = null;
      if (hasKey) audits.push(entry('agent.model_key_remove', { reason: 'removed' }));
    } else if (request.modelApiKey !== undefined) {
      changes.modelApiKeyCipher = this.modelKeys.seal(request.modelApiKey);
      audits.push(entry('agent.model_key_set', { replaced: hasKey }));
    }
    const updated = await this.agents.updateVisible(principal, agentId, changes);
    if (updated === NAME_TAKEN) throw nameTaken(request.name ?? current.name);
    if (!updated) throw notFound('agent');
    for (const audit of audits) await this.audit.record(audit);
    return this.view(principal, updated);
  }

  async remove(principal: Principal, agentId: string): Promise<void> {
    if (!(await this.agents.deleteVisible(principal, agentId))) throw notFound('agent');
  }

  private async view(principal: Principal, agent: Agent): Promise<AgentView> {
    const role = await this.access.require(principal, agent.workspaceId);
    return (await this.views(agent.workspaceId, role, [agent]))[0]!;
  }

  /**
   * Views of agents of one workspace, as `role` sees them: the workspace's model row is read once for all
   * of them, and only owners and admins (who may change them) see a key's last four characters and a base URL.
   */
  private async views(workspaceId: string, role: MembershipRole, agents: Agent[]): Promise<AgentView[]> {
    const row: ModelLinkRow = (await this.workspaces.modelRow(workspaceId)) ?? { modelSettings: {}, modelApiKeyCipher: null };
    const readiness = await this.chain.readinessOfAgents(
      workspaceId,
      this.chain.linkOf(row, false),
      agents.map((agent) => this.chain.linkOf(agent, false)),
    );
    const manager = hasRole(role, 'admin');
    return agents.map((agent, index) =>
      toAgentView(agent, readiness[index]!, {
        manager,
        keyLast4: manager ? this.modelKeys.last4(agent.modelApiKeyCipher) : null,
      }),
    );
  }

  private async visibleRow(principal: Principal, agentId: string): Promise<Agent> {
    const agent = await this.agents.findVisible(principal, agentId);
    if (!agent) throw notFound('agent');
    return agent;
  }
}

function nameTaken(name: string) {
  return conflict('name_taken', `an agent named "${name}" already exists in this workspace`);
}
