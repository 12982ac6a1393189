import { Inject, Injectable } from '@nestjs/common';
import type { InstanceSettingsView, UpdateInstanceSettingsRequest } from '@lazyboy/contracts';
import { ModelEndpointPolicy } from '@lazyboy/model';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../auth/principal.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import type { InstanceSettings } from '../persistence/generated/client.js';
import { InstanceSettingsRepository } from './instance-settings.repository.js';

/**
 * Settings of the whole instance (today: whether agents may use local model servers). Read from the
 * database on every use, so a change reaches every replica at once; the environment seeds the defaults
 * until an instance admin first decides.
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

  /** An instance admin's change (the route is @AdminOnly), audited; the same value again changes nothing. */
  async update(principal: Principal, request: UpdateInstanceSettingsRequest, ip?: string): Promise<InstanceSettingsView> {
    const before = await this.repo.find();
    if (before && before.allowLocalModelServers === request.allowLocalModelServers) return this.toView(before);
    const saved = await this.repo.save(request.allowLocalModelServers);
    await this.audit.record({
      actorUserId: principal.userId,
      action: 'admin.settings.update',
      targetType: 'instance',
      details: {
        allowLocalModelServers: request.allowLocalModelServers,
        from: before?.allowLocalModelServers ?? this.config.LAZYBOY_ALLOW_LOCAL_MODEL_SERVERS,
      },
      ip,
    });
    return this.toView(saved);
  }

  /** The policy for model servers people configured (agents' and workspaces' settings), as things stand now. */
  async modelEndpointPolicy(): Promise<ModelEndpointPolicy> {
    const { allowLocalModelServers } = await this.view();
    return allowLocalModelServers ? this.policies.local : this.policies.remote;
  }

  private toView(row: InstanceSettings | null): InstanceSettingsView {
    return {
      allowLocalModelServers: row?.allowLocalModelServers ?? this.config.LAZYBOY_ALLOW_LOCAL_MODEL_SERVERS,
      updatedAt: row?.updatedAt.toISOString() ?? null,
    };
  }
}
