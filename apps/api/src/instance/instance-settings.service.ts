import { Inject, Injectable } from '@nestjs/common';
import type {
  EnvironmentModelScope,
  InstanceSettingsView,
  SignupPolicy,
  UpdateInstanceSettingsRequest,
} from '@lazyboy/contracts';
import { ModelEndpointPolicy } from '@lazyboy/model';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../auth/principal.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import type { InstanceSettings } from '../persistence/generated/client.js';
import { InstanceSettingsRepository, type InstanceSettingsChanges } from './instance-settings.repository.js';

/**
 * Settings of the whole instance: whether agents may use local model servers, who may sign up, and which
 * workspaces the host's environment model serves. Read from the database on every use, so a change reaches
 * every replica at once; each follows its environment variable until an instance admin first sets it.
 */
@Injectable()
export class InstanceSettingsService {
  /** The two model endpoint policies there can be; each keeps its own connection pool, so they are made once. */
  private readonly policies: Record<'local' | 'remote', ModelEndpointPolicy>;

  constructor(
    private readonly repo: InstanceSettingsRepository,
    private readonly audit: AuditService,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {
    const blockedNetworks = config.LAZYBOY_MODEL_BLOCKED_NETWORKS;
    this.policies = {
      local: new ModelEndpointPolicy({ allowLoopback: true, blockedNetworks }),
      remote: new ModelEndpointPolicy({ allowLoopback: false, blockedNetworks }),
    };
  }

  async view(): Promise<InstanceSettingsView> {
    return this.toView(await this.repo.find());
  }

  /** An instance admin's change (the route is @AdminOnly), audited; the same values again change nothing. */
  async update(principal: Principal, request: UpdateInstanceSettingsRequest, ip?: string): Promise<InstanceSettingsView> {
    const row = await this.repo.find();
    const before = this.toView(row);
    const changes: InstanceSettingsChanges = {};
    const details: Record<string, string | boolean> = {};
    if (request.allowLocalModelServers !== undefined && request.allowLocalModelServers !== before.allowLocalModelServers) {
      changes.allowLocalModelServers = request.allowLocalModelServers;
      Object.assign(details, { allowLocalModelServers: request.allowLocalModelServers, from: before.allowLocalModelServers });
    }
    if (request.environmentModelScope !== undefined && request.environmentModelScope !== before.environmentModelScope) {
      changes.environmentModelForAllWorkspaces = request.environmentModelScope === 'all_workspaces';
      Object.assign(details, {
        environmentModelScope: request.environmentModelScope,
        fromEnvironmentModelScope: before.environmentModelScope,
      });
    }
    if (request.signupPolicy !== undefined && request.signupPolicy !== before.signupPolicy) {
      changes.signupPolicy = request.signupPolicy;
      Object.assign(details, { signupPolicy: request.signupPolicy, fromSignupPolicy: before.signupPolicy });
    }
    if (Object.keys(changes).length === 0) return before;
    const saved = await this.repo.save(changes);
    await this.audit.record({
      actorUserId: principal.userId,
      action: 'admin.settings.update',
      targetType: 'instance',
      details,
      ip,
    });
    return this.toView(saved);
  }

  /** The policy for model servers people configured (agents' and workspaces' settings), as things stand now. */
  async modelEndpointPolicy(): Promise<ModelEndpointPolicy> {
    return this.policyFor(await this.view());
  }

  policyFor(settings: Pick<InstanceSettingsView, 'allowLocalModelServers'>): ModelEndpointPolicy {
    return settings.allowLocalModelServers ? this.policies.local : this.policies.remote;
  }

  /** Whether the host's environment model serves this workspace, as things stand now. */
  async environmentServes(workspaceId: string, scope?: EnvironmentModelScope): Promise<boolean> {
    if ((scope ?? (await this.view()).environmentModelScope) === 'all_workspaces') return true;
    return (await this.repo.firstWorkspaceId()) === workspaceId;
  }

  /** Who may sign up, as things stand now. */
  async signupPolicy(): Promise<SignupPolicy> {
    return (await this.view()).signupPolicy;
  }

  private toView(row: InstanceSettings | null): InstanceSettingsView {
    const allForAll = row?.environmentModelForAllWorkspaces;
    return {
      allowLocalModelServers: row?.allowLocalModelServers ?? this.config.LAZYBOY_ALLOW_LOCAL_MODEL_SERVERS,
      signupPolicy: row?.signupPolicy ?? this.config.LAZYBOY_SIGNUP,
      environmentModelScope:
        allForAll === null || allForAll === undefined
          ? this.config.LAZYBOY_ENVIRONMENT_MODEL_SCOPE
          : allForAll
            ? 'all_workspaces'
            : 'first_workspace',
      mailConfigured: this.config.LAZYBOY_SMTP_URL !== undefined,
      updatedAt: row?.updatedAt.toISOString() ?? null,
    };
  }
}
