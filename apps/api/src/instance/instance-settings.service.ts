import { Inject, Injectable } from '@nestjs/common';
import type { InstanceSettingsView, SignupPolicy, UpdateInstanceSettingsRequest } from '@lazyboy/contracts';
import { ModelEndpointPolicy } from '@lazyboy/model';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../auth/principal.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import type { InstanceSettings } from '../persistence/generated/client.js';
import { InstanceSettingsRepository, type InstanceSettingsChanges } from './instance-settings.repository.js';

type SettingName = keyof InstanceSettingsChanges;
const SETTINGS: readonly SettingName[] = ['allowLocalModelServers', 'signupPolicy'];

/**
 * Settings of the whole instance: whether agents may use local model servers, and who may sign up. Read
 * from the database on every use, so a change reaches every replica at once; each setting's environment
 * variable decides until an instance admin first sets it.
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

  /**
   * An instance admin's change (the route is @AdminOnly): each setting given whose stored value differs is
   * saved, with one audit row per setting saying what it was before; a request changing nothing writes nothing.
   */
  async update(principal: Principal, request: UpdateInstanceSettingsRequest, ip?: string): Promise<InstanceSettingsView> {
    const before = await this.repo.find();
    const changes: InstanceSettingsChanges = {};
    for (const name of SETTINGS) {
      const value = request[name];
      if (value !== undefined && before?.[name] !== value) Object.assign(changes, { [name]: value });
    }
    if (Object.keys(changes).length === 0) return this.toView(before);
    const effectiveBefore = this.toView(before);
    const saved = await this.repo.save(changes);
    for (const [name, value] of Object.entries(changes) as [SettingName, boolean | SignupPolicy][]) {
      await this.audit.record({
        actorUserId: principal.userId,
        action: 'admin.settings.update',
        targetType: 'instance',
        details: { [name]: value, from: effectiveBefore[name] },
        ip,
      });
    }
    return this.toView(saved);
  }

  /** The policy for model servers people configured (agents' and workspaces' settings), as things stand now. */
  async modelEndpointPolicy(): Promise<ModelEndpointPolicy> {
    const { allowLocalModelServers } = await this.view();
    return allowLocalModelServers ? this.policies.local : this.policies.remote;
  }

  /** Who may sign up, as things stand now. */
  async signupPolicy(): Promise<SignupPolicy> {
    return (await this.view()).signupPolicy;
  }

  private toView(row: InstanceSettings | null): InstanceSettingsView {
    return {
      allowLocalModelServers: row?.allowLocalModelServers ?? this.config.LAZYBOY_ALLOW_LOCAL_MODEL_SERVERS,
      signupPolicy: row?.signupPolicy ?? this.config.LAZYBOY_SIGNUP,
      updatedAt: row?.updatedAt.toISOString() ?? null,
    };
  }
}
