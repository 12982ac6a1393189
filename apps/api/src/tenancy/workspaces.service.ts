import { Injectable } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import type {
  AddMemberRequest,
  MemberView,
  MembershipRole,
  UpdateWorkspaceRequest,
  WorkspaceSummaryView,
  WorkspaceView,
} from '@lazyboy/contracts';
import { conflict, forbidden, notFound } from '../common/api-error.js';
import type { Principal } from '../auth/principal.js';
import { AuditService, type AuditEntry } from '../audit/audit.service.js';
import { InstanceSettingsService } from '../instance/instance-settings.service.js';
import { ModelKeys } from '../model/model-keys.js';
import {
  assertAllowedBaseUrl,
  assertAllowedModelPath,
  assertKeyHasEndpoint,
  dropsStoredKey,
} from '../model/model-settings-rules.js';
import {
  mergeWorkspaceModelSettings,
  WorkspaceModelService,
  workspaceModelSettingsOf,
} from '../model/workspace-model.service.js';
import { MembershipChanges } from './membership-changes.js';
import { TenancyRepository, type MemberRow, type WorkspaceSettingsChanges } from './tenancy.repository.js';
import { WorkspaceAccess } from './workspace-access.js';
import { createWithUniqueSlug } from './workspace-slug.js';
import { toMemberView, toSummary, toView } from './workspace-views.js';

/** Workspaces and their members. Every route naming a workspace answers 404 to non-members. */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly tenancy: TenancyRepository,
    private readonly access: WorkspaceAccess,
    private readonly changes: MembershipChanges,
    private readonly audit: AuditService,
    private readonly instance: InstanceSettingsService,
    private readonly modelKeys: ModelKeys,
    private readonly model: WorkspaceModelService,
  ) {}

  async list(principal: Principal): Promise<WorkspaceSummaryView[]> {
    const workspaces = await this.tenancy.workspacesOf(principal.userId, principal.tokenWorkspaceId);
    return workspaces.map(toSummary);
  }

  /**
   * Under the `invite` and `closed` sign-up policies only instance admins make workspaces: anyone else
   * would become owner of one and invite whoever they like, which the policy is there to prevent.
   */
  async create(principal: Principal, name: string, ip?: string): Promise<WorkspaceView> {
    if (principal.tokenWorkspaceId) throw forbidden('this API token is limited to one workspace');
    if (!principal.isAdmin && (await this.instance.signupPolicy()) !== 'open') {
      throw forbidden(
        'on this instance only instance admins create workspaces (the sign-up policy is not open)',
        'workspace_creation_restricted',
      );
    }
    const workspaceId = await createWithUniqueSlug(
      name,
      (slug) => this.tenancy.slugTaken(slug),
      (slug) => this.tenancy.createWorkspace(principal.userId, name, slug),
    );
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: 'workspace.create',
      targetType: 'workspace',
      targetId: workspaceId,
      details: { name },
      ip,
    });
    return this.view(principal.userId, workspaceId);
  }

  /** One query: the membership read that finds the workspace also is the access check. */
  async get(principal: Principal, workspaceId: string): Promise<WorkspaceView> {
    if (principal.tokenWorkspaceId && principal.tokenWorkspaceId !== workspaceId) throw notFound('workspace');
    return this.view(principal.userId, workspaceId);
  }

  /**
   * The one place a workspace's settings change (owners and admins): name, time zone, model settings and
   * key. Model settings follow the agents' rules: the endpoint policy on every base URL, a model file only
   * where local model servers are allowed, and a new provider or base URL drops the stored key unless the
   * same request brings one. One audit row per thing changed, never with the key.
   */
  async update(principal: Principal, workspaceId: string, request: UpdateWorkspaceRequest, ip?: string): Promise<WorkspaceView> {
    await this.access.require(principal, workspaceId, 'admin');
    const next = request.modelSettings;
    if (next) {
      const policy = await this.instance.modelEndpointPolicy();
      assertAllowedBaseUrl(next, policy, 'modelSettings.baseUrl');
      assertAllowedModelPath(next, policy, 'modelSettings.modelPath');
    }
    const sealed = request.modelApiKey ? this.modelKeys.seal(request.modelApiKey) : undefined;
    const entry = (action: string, details: AuditEntry['details'] = {}): AuditEntry => ({
      workspaceId,
      actorUserId: principal.userId,
      action,
      targetType: 'workspace',
      targetId: workspaceId,
      details,
      ip,
    });
    const outcome = await this.tenancy.updateSettings(workspaceId, (current) => {
      const changes: WorkspaceSettingsChanges = {};
      const audits: AuditEntry[] = [];
      if (request.name !== undefined && request.name !== current.name) {
        changes.name = request.name;
        audits.push(entry('workspace.rename', { name: request.name }));
      }
      if (request.timezone !== undefined && request.timezone !== current.timezone) {
        changes.timezone = request.timezone;
        audits.push(entry('workspace.timezone_change', { timezone: request.timezone, from: current.timezone }));
      }
      let hasKey = current.modelApiKeyCipher !== null;
      if (next) {
        const stored = workspaceModelSettingsOf(current.modelSettings);
        if (!isDeepStrictEqual(stored, next)) {
          changes.modelSettings = mergeWorkspaceModelSettings(current.modelSettings, next);
          audits.push(entry('workspace.model_settings_change', { settings: next, from: stored }));
        }
        if (hasKey && dropsStoredKey(stored, next, request.modelApiKey !== undefined)) {
          changes.modelApiKeyCipher = null;
          hasKey = false;
          audits.push(entry('workspace.model_key_remove', { reason: 'endpoint_changed' }));
        }
      }
      if (sealed) assertKeyHasEndpoint(next ?? workspaceModelSettingsOf(current.modelSettings), 'modelApiKey');
      if (request.modelApiKey === null && hasKey) {
        changes.modelApiKeyCipher = null;
        audits.push(entry('workspace.model_key_remove', { reason: 'removed' }));
      } else if (sealed) {
        changes.modelApiKeyCipher = sealed;
        audits.push(entry('workspace.model_key_set', { replaced: hasKey }));
      }
      return { changes, result: audits };
    });
    if (!outcome) throw notFound('workspace');
    for (const audit of outcome.result) await this.audit.record(audit);
    return this.view(principal.userId, workspaceId);
  }

  async members(principal: Principal, workspaceId: string): Promise<MemberView[]> {
    await this.access.require(principal, workspaceId);
    return (await this.tenancy.members(workspaceId)).map(toMemberView);
  }

  async addMember(principal: Principal, workspaceId: string, request: AddMemberRequest, ip?: string): Promise<MemberView> {
    const callerRole = await this.access.require(principal, workspaceId, 'admin');
    if (request.role === 'owner' && callerRole !== 'owner') throw forbidden('only owners may add owners');
    const userId = await this.tenancy.userIdByEmail(request.email);
    if (!userId) throw notFound('user');
    if (!(await this.tenancy.addMember(workspaceId, userId, request.role)))
      throw conflict('already_member', 'already a member of this workspace');
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: 'member.add',
      targetType: 'user',
      targetId: userId,
      details: { role: request.role },
      ip,
    });
    const member = await this.tenancy.member(workspaceId, userId);
    // Removed between our write and this read by someone else: it is gone for the caller too.
    if (!member) throw notFound('member');
    return toMemberView(member);
  }

  async changeRole(
    principal: Principal,
    workspaceId: string,
    userId: string,
    role: MembershipRole,
    ip?: string,
  ): Promise<MemberView> {
    const callerRole = await this.access.require(principal, workspaceId, 'admin');
    const target = await this.target(workspaceId, userId);
    if ((target.role === 'owner' || role === 'owner') && callerRole !== 'owner') {
      throw forbidden('only owners may grant or revoke the owner role');
    }
    return this.changes.applyRoleChange(workspaceId, target, role, {
      userId: principal.userId,
      action: 'member.role_change',
      ip,
    });
  }

  /** Admins remove members (only owners remove owners); anyone may leave. The last owner may do neither. */
  async removeMember(principal: Principal, workspaceId: string, userId: string, ip?: string): Promise<void> {
    const leaving = userId === principal.userId;
    const callerRole = await this.access.require(principal, workspaceId, leaving ? 'member' : 'admin');
    const target = await this.target(workspaceId, userId);
    if (!leaving && target.role === 'owner' && callerRole !== 'owner') throw forbidden('only owners may remove owners');
    await this.changes.applyRemoval(workspaceId, target, {
      userId: principal.userId,
      action: leaving ? 'member.leave' : 'member.remove',
      ip,
    });
  }

  private async target(workspaceId: string, userId: string): Promise<MemberRow> {
    const target = await this.tenancy.member(workspaceId, userId);
    if (!target) throw notFound('member');
    return target;
  }

  private async view(userId: string, workspaceId: string): Promise<WorkspaceView> {
    const workspace = await this.tenancy.workspaceOf(userId, workspaceId);
    if (!workspace) throw notFound('workspace');
    return toView(workspace, await this.model.view(workspaceId, workspace, workspace.role));
  }
}
