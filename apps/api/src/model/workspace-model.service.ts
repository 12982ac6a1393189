import { Inject, Injectable } from '@nestjs/common';
import {
  workspaceModelSettingsSchema,
  type LocalModelServerListView,
  type MembershipRole,
  type ModelListQuery,
  type ModelListView,
  type ModelSettings,
  type ModelTestRequest,
  type ModelTestView,
  type WorkspaceModelSettings,
  type WorkspaceModelView,
} from '@lazyboy/contracts';
import {
  checkFailureOf,
  findLocalModelServers,
  isInContainer,
  listModels,
  rewriteLoopbackForContainer,
  sameEndpointSettings,
  testModel,
  type LocalModelServerCandidate,
} from '@lazyboy/model';
import type { Principal } from '../auth/principal.js';
import { notFound } from '../common/api-error.js';
import type { Prisma } from '../persistence/generated/client.js';
import { hasRole, WorkspaceAccess } from '../tenancy/workspace-access.js';
import { ModelChain, storedModelSettings, type ModelLinkRow } from './model-chain.js';
import { ModelKeys } from './model-keys.js';
import { assertAllowedBaseUrl, assertAllowedModelPath, assertKeyHasEndpoint } from './model-settings-rules.js';
import { WorkspaceModelRepository } from './workspace-model.repository.js';

/** The loopback model servers `local-servers` looks for (a provider of its own, so tests can point it elsewhere). */
export const LOCAL_MODEL_SERVER_CANDIDATES = Symbol('LOCAL_MODEL_SERVER_CANDIDATES');

const WORKSPACE_SETTINGS = Object.keys(workspaceModelSettingsSchema.shape);

/** The stored settings as the workspace view shows them: the known keys that are valid. */
export function workspaceModelSettingsOf(stored: Prisma.JsonValue): WorkspaceModelSettings {
  const settings = storedModelSettings(stored);
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (WORKSPACE_SETTINGS.includes(key) && workspaceModelSettingsSchema.safeParse({ [key]: value }).success) shown[key] = value;
  }
  return shown as WorkspaceModelSettings;
}

/** Replaces the settings the API shows and keeps whatever else the stored JSON holds. */
export function mergeWorkspaceModelSettings(stored: Prisma.JsonValue, next: WorkspaceModelSettings): Prisma.InputJsonObject {
  const kept: Record<string, Prisma.InputJsonValue> = {};
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    for (const [key, value] of Object.entries(stored)) {
      if (!WORKSPACE_SETTINGS.includes(key) && value !== null && value !== undefined) kept[key] = value;
    }
  }
  return { ...kept, ...next };
}

/**
 * A workspace's model: its view, and what the settings page asks of an endpoint before saving (the model
 * list, one test request, the local servers). Owners and admins only for the checks: they send the stored
 * key and make the API connect where the caller says.
 */
@Injectable()
export class WorkspaceModelService {
  constructor(
    private readonly access: WorkspaceAccess,
    private readonly chain: ModelChain,
    private readonly keys: ModelKeys,
    private readonly workspaces: WorkspaceModelRepository,
    @Inject(LOCAL_MODEL_SERVER_CANDIDATES) private readonly localCandidates: readonly LocalModelServerCandidate[],
  ) {}

  /** The model part of a workspace's view: the key as its last four characters, for owners and admins only. */
  async view(workspaceId: string, row: ModelLinkRow, role: MembershipRole): Promise<WorkspaceModelView> {
    const { readiness, hostModel, settings } = await this.chain.workspaceModel(workspaceId, this.chain.linkOf(row, false));
    // The settings page is for owners and admins. A member learns whether the agents have a model (and
    // which) from `readiness`, never where the endpoint is: a base URL can name a machine of the LAN.
    const manager = hasRole(role, 'admin');
    return {
      settings: manager ? workspaceModelSettingsOf(row.modelSettings) : {},
      hasApiKey: row.modelApiKeyCipher !== null,
      apiKeyLast4: manager ? this.keys.last4(row.modelApiKeyCipher) : null,
      readiness,
      localModelServersAllowed: settings.allowLocalModelServers,
      hostModel,
    };
  }

  /**
   * The models an endpoint lists: the one named in the query, else the one the saved settings resolve to.
   * The saved key goes along only to the endpoint it was saved with; the host's keys only to the host's.
   */
  async models(principal: Principal, workspaceId: string, query: ModelListQuery): Promise<ModelListView> {
    const row = await this.adminRow(principal, workspaceId);
    const saved = storedModelSettings(row.modelSettings);
    let workspace = this.chain.linkOf(row);
    if (query.provider !== undefined || query.baseUrl !== undefined) {
      const asked: ModelSettings = {
        ...(query.provider ? { provider: query.provider } : {}),
        ...(query.baseUrl ? { baseUrl: query.baseUrl } : {}),
      };
      assertAllowedBaseUrl(asked, (await this.chain.instanceSettings()).policy, 'baseUrl', 'query');
      workspace = keyFor(asked, saved, workspace.apiKey);
    }
    const resolved = await this.chain.endpoint({ workspaceId, workspace });
    const asked = query.provider ?? saved.provider ?? 'openai-chat';
    if (!resolved.ok) {
      return {
        ok: false,
        provider: asked,
        baseUrl: query.baseUrl ?? saved.baseUrl ?? null,
        models: [],
        sentApiKey: false,
        error: checkFailureOf(resolved.error),
      };
    }
    const { endpoint, endpointPolicy } = resolved;
    const answer = { provider: endpoint.provider, baseUrl: shownUrl(endpoint), sentApiKey: endpoint.apiKey !== undefined };
    // A model file has no list to read.
    if (endpoint.provider === 'local-gguf') return { ok: true, ...answer, models: [], error: null };
    try {
      const models = await listModels(endpoint, endpointPolicy ? { endpointPolicy } : {});
      return { ok: true, ...answer, models, error: null };
    } catch (error) {
      return { ok: false, ...answer, models: [], error: checkFailureOf(error) };
    }
  }

  /**
   * One small real request with the given settings (or the saved ones) through the credential chain, as a
   * run of an agent without settings of its own would make it. Never echoes the key: the provider's own
   * error text is redacted of it.
   */
  async test(principal: Principal, workspaceId: string, request: ModelTestRequest): Promise<ModelTestView> {
    const row = await this.adminRow(principal, workspaceId);
    const saved = storedModelSettings(row.modelSettings);
    let workspace = this.chain.linkOf(row);
    if (request.modelSettings) {
      const { policy } = await this.chain.instanceSettings();
      assertAllowedBaseUrl(request.modelSettings, policy, 'modelSettings.baseUrl');
      assertAllowedModelPath(request.modelSettings, policy, 'modelSettings.modelPath');
      workspace = keyFor(request.modelSettings, saved, workspace.apiKey);
    }
    if (request.modelApiKey !== undefined) {
      assertKeyHasEndpoint(workspace.settings, 'modelApiKey');
      workspace = { ...workspace, apiKey: request.modelApiKey };
    }
    const resolution = await this.chain.resolve({ workspaceId, workspace });
    if (!resolution.ok) {
      const { provider, model, baseUrl, source } = resolution.partial;
      return {
        ok: false,
        provider: provider ?? null,
        model: model ?? null,
        baseUrl: source && baseUrl ? shownUrl({ source, baseUrl }) : null,
        source: source ?? null,
        sentApiKey: false,
        reply: null,
        error: checkFailureOf(resolution.error),
      };
    }
    const { backend, endpointPolicy } = resolution;
    const answer = {
      provider: backend.provider,
      model: backend.model,
      baseUrl: shownUrl(backend),
      source: backend.source,
      sentApiKey: backend.apiKey !== undefined,
    };
    try {
      const { reply } = await testModel(backend, endpointPolicy ? { endpointPolicy } : {});
      return { ok: true, ...answer, reply, error: null };
    } catch (error) {
      return { ok: false, ...answer, reply: null, error: checkFailureOf(error) };
    }
  }

  /** The model servers answering on their usual loopback ports, when the instance allows local servers. */
  async localServers(principal: Principal, workspaceId: string): Promise<LocalModelServerListView> {
    await this.adminRow(principal, workspaceId);
    const { settings } = await this.chain.instanceSettings();
    if (!settings.allowLocalModelServers) return { allowed: false, reason: 'local_model_servers_not_allowed', servers: [] };
    const inContainer = isInContainer(process.env);
    const found = await findLocalModelServers(this.localCandidates, {
      ...(inContainer ? { probeUrl: rewriteLoopbackForContainer } : {}),
    });
    return {
      allowed: true,
      reason: null,
      servers: found.map(({ kind, baseUrl, provider, models }) => ({ kind, baseUrl, provider, models })),
    };
  }

  private async adminRow(principal: Principal, workspaceId: string): Promise<ModelLinkRow> {
    await this.access.require(principal, workspaceId, 'admin');
    const row = await this.workspaces.modelRow(workspaceId);
    if (!row) throw notFound('workspace');
    return row;
  }
}

/** The operator's own endpoint (the environment's) is not shown to workspaces; local-gguf has none. */
function shownUrl(endpoint: { source: string; baseUrl: string }): string | null {
  return endpoint.source === 'env' || endpoint.baseUrl === '' ? null : endpoint.baseUrl;
}

/** Settings asked about, with the saved key only when they name the endpoint it was saved with. */
function keyFor(asked: ModelSettings, saved: ModelSettings, savedKey: string | undefined) {
  const same = sameEndpointSettings({ provider: saved.provider, baseUrl: saved.baseUrl }, asked);
  return { settings: asked, ...(same && savedKey ? { apiKey: savedKey } : {}) };
}
