import { Injectable } from '@nestjs/common';
import {
  modelSettingsSchema,
  type HostModelAvailability,
  type InstanceSettingsView,
  type ModelClient,
  type ModelReadiness,
  type ModelSettings,
  modelUnavailableCodeSchema,
} from '@lazyboy/contracts';
import {
  assertApiKey,
  createModelClient,
  isInContainer,
  ModelEndpointRefusedError,
  ModelError,
  modelErrorCode,
  resolveModelBackend,
  resolveModelEndpoint,
  type CredentialLink,
  type ModelEndpointPolicy,
  type ResolvedModelBackend,
  type ResolvedModelEndpoint,
} from '@lazyboy/model';
import { InstanceSettingsService } from '../instance/instance-settings.service.js';
import type { Prisma } from '../persistence/generated/client.js';
import { LOCAL_FILES_OFF } from './model-settings-rules.js';
import { ModelKeys } from './model-keys.js';

// The one place that decides which model an agent talks to, with which key: the agent's own settings and
// key, then its workspace's, then the host's environment (MODEL_ENV_VARIABLES) when the instance lets the
// environment serve this workspace. Runs, the agents' and workspaces' readiness, and the settings page's
// checks all ask here, so what a page promises is what a run gets.

/** A row holding model settings and a sealed key: an agent or a workspace. */
export interface ModelLinkRow {
  modelSettings: Prisma.JsonValue;
  modelApiKeyCipher: Uint8Array | null;
}

export interface ChainInput {
  workspaceId: string;
  workspace: CredentialLink;
  agent?: CredentialLink;
}

/** What the chain resolved to, or the ModelError saying why nothing usable: never both. */
export type ChainResolution =
  | { ok: true; backend: ResolvedModelBackend; endpointPolicy: ModelEndpointPolicy | undefined }
  | { ok: false; error: ModelError; partial: Partial<ResolvedModelBackend> };

/**
 * How every message a workspace can read names the host's own endpoint (the environment's): its address is
 * the operator's, not the workspace's, and may name a machine of the host's network.
 */
export const HOST_MODEL_SERVER_LABEL = "the host's model server";

/** The endpoint as messages name it: the environment's by label, one people configured by the URL they typed. */
function labelled<T extends { source: string; label?: string }>(endpoint: T): T {
  return endpoint.source === 'env' ? { ...endpoint, label: HOST_MODEL_SERVER_LABEL } : endpoint;
}

/** A stand-in for a sealed key where only its presence matters (readiness): the real one never leaves linkOf. */
const PRESENT_KEY = 'stored-key';

const KNOWN_SETTINGS = Object.keys(modelSettingsSchema.shape);

/** The stored settings JSON as the chain reads it: each known key that is valid on its own, the rest dropped. */
export function storedModelSettings(stored: Prisma.JsonValue): ModelSettings {
  const whole = modelSettingsSchema.safeParse(stored);
  if (whole.success) return whole.data;
  const settings: Record<string, unknown> = {};
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    for (const [key, value] of Object.entries(stored)) {
      if (KNOWN_SETTINGS.includes(key) && modelSettingsSchema.safeParse({ [key]: value }).success) settings[key] = value;
    }
  }
  return settings as ModelSettings;
}

interface ChainContext {
  settings: InstanceSettingsView;
  policy: ModelEndpointPolicy;
  /** Whether the host's environment serves this workspace. */
  serves: boolean;
  /** The environment the last link reads: the process's when it serves this workspace, else nothing. */
  env: Record<string, string | undefined>;
}

@Injectable()
export class ModelChain {
  constructor(
    private readonly instance: InstanceSettingsService,
    private readonly keys: ModelKeys,
  ) {}

  /**
   * A row as a link of the chain: its settings, and its key opened (or, for readiness, only known to open:
   * a key that cannot be opened counts as none, so readiness says what a run would meet).
   */
  linkOf(row: ModelLinkRow, openKey = true): CredentialLink {
    const opened = this.keys.open(row.modelApiKeyCipher);
    const apiKey = opened === undefined ? undefined : openKey ? opened : PRESENT_KEY;
    return { settings: storedModelSettings(row.modelSettings), ...(apiKey ? { apiKey } : {}) };
  }

  /** The model client of a run, or the ModelError that ends it (its code says why: model_not_configured…). */
  async clientFor(input: ChainInput): Promise<ModelClient> {
    const resolution = await this.resolve(input);
    if (!resolution.ok) throw resolution.error;
    const { backend, endpointPolicy } = resolution;
    return createModelClient(backend, endpointPolicy ? { endpointPolicy } : {});
  }

  /** Whether these links give a usable model, without asking it. */
  async readiness(input: ChainInput): Promise<ModelReadiness> {
    return readinessOf(await this.resolve(input));
  }

  /** The readiness of several agents of one workspace, with one look at the instance's settings. */
  async readinessOfAgents(workspaceId: string, workspace: CredentialLink, agents: CredentialLink[]): Promise<ModelReadiness[]> {
    const context = await this.context(workspaceId);
    return agents.map((agent) => readinessOf(resolveWith(context, { workspaceId, workspace, agent })));
  }

  /**
   * Resolves the chain for `input` as things stand now: the instance's settings, whether the environment
   * serves this workspace, the endpoint policy for endpoints people configured (the operator's own
   * environment is trusted), and a key where the provider needs one.
   */
  async resolve(input: ChainInput): Promise<ChainResolution> {
    return resolveWith(await this.context(input.workspaceId), input);
  }

  /**
   * Only the endpoint and its key, for listing an endpoint's models. The endpoint policy comes with it
   * when people configured the endpoint; a refused one is a ModelEndpointRefusedError.
   */
  async endpoint(
    input: ChainInput,
  ): Promise<
    | { ok: true; endpoint: ResolvedModelEndpoint; endpointPolicy: ModelEndpointPolicy | undefined }
    | { ok: false; error: ModelError }
  > {
    const context = await this.context(input.workspaceId);
    let endpoint: ResolvedModelEndpoint;
    try {
      endpoint = labelled(resolveModelEndpoint({ ...links(input), env: context.env, inContainer: isInContainer(process.env) }));
    } catch (error) {
      return { ok: false, error: asModelError(error) };
    }
    if (endpoint.source === 'env') return { ok: true, endpoint, endpointPolicy: undefined };
    const refusal = endpoint.baseUrl ? context.policy.refusalOf(endpoint.baseUrl) : undefined;
    if (refusal) return { ok: false, error: refusedError(endpoint.baseUrl, refusal) };
    return { ok: true, endpoint, endpointPolicy: context.policy };
  }

  /**
   * What a workspace's view says of its model, with one look at the instance's settings: the readiness of
   * an agent without settings of its own, whether the host's environment names a model and serves this
   * workspace, and the instance's settings.
   */
  async workspaceModel(
    workspaceId: string,
    workspace: CredentialLink,
  ): Promise<{ readiness: ModelReadiness; hostModel: HostModelAvailability; settings: InstanceSettingsView }> {
    const context = await this.context(workspaceId);
    let hostModel: HostModelAvailability = context.serves ? 'available' : 'not_for_this_workspace';
    try {
      resolveModelEndpoint({ env: process.env });
    } catch {
      hostModel = 'none';
    }
    return { readiness: readinessOf(resolveWith(context, { workspaceId, workspace })), hostModel, settings: context.settings };
  }

  /** The instance's settings and the model endpoint policy they select (one read for both). */
  async instanceSettings(): Promise<{ settings: InstanceSettingsView; policy: ModelEndpointPolicy }> {
    const settings = await this.instance.view();
    return { settings, policy: this.instance.policyFor(settings) };
  }

  private async context(workspaceId: string): Promise<ChainContext> {
    const { settings, policy } = await this.instanceSettings();
    const serves = await this.instance.environmentServes(workspaceId, settings.environmentModelScope);
    return { settings, policy, serves, env: serves ? process.env : {} };
  }
}

function resolveWith(context: ChainContext, input: ChainInput): ChainResolution {
  let backend: ResolvedModelBackend;
  try {
    backend = labelled(resolveModelBackend({ ...links(input), env: context.env, inContainer: isInContainer(process.env) }));
  } catch (error) {
    return failed(error, {});
  }
  if (backend.source === 'env') return checkedKey(backend, undefined);
  const refusal = configuredRefusal(input, backend, context.policy);
  if (refusal) return { ok: false, error: refusal, partial: backend };
  return checkedKey(backend, context.policy);
}

function links(input: ChainInput): { agent?: CredentialLink; workspace: CredentialLink } {
  return { ...(input.agent ? { agent: input.agent } : {}), workspace: input.workspace };
}

function asModelError(error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  return new ModelError(error instanceof Error ? error.message : String(error));
}

function failed(error: unknown, partial: Partial<ResolvedModelBackend>): ChainResolution {
  return { ok: false, error: asModelError(error), partial };
}

function refusedError(baseUrl: string, refusal: string): ModelEndpointRefusedError {
  let host = baseUrl;
  try {
    host = new URL(baseUrl).host;
  } catch {
    // The URL as written, then.
  }
  return new ModelEndpointRefusedError(`the model server ${host} is refused: it ${refusal}`);
}

/**
 * Why an endpoint people configured may not be used now (settings saved before the instance changed its
 * mind): a base URL the policy refuses, or a model file of their own while local model servers are off.
 */
function configuredRefusal(
  input: ChainInput,
  backend: ResolvedModelBackend,
  policy: ModelEndpointPolicy,
): ModelError | undefined {
  if (backend.provider === 'local-gguf') {
    const ownFile = input.agent?.settings.modelPath ?? input.workspace.settings.modelPath;
    return ownFile !== undefined && !policy.allowLoopback
      ? new ModelEndpointRefusedError(LOCAL_FILES_OFF, { provider: 'local-gguf' })
      : undefined;
  }
  const refusal = policy.refusalOf(backend.baseUrl);
  return refusal ? refusedError(backend.baseUrl, refusal) : undefined;
}

/** A hosted provider without a key fails before any request (MissingApiKeyError): known here already. */
function checkedKey(backend: ResolvedModelBackend, endpointPolicy: ModelEndpointPolicy | undefined): ChainResolution {
  if (backend.provider !== 'local-gguf') {
    try {
      assertApiKey(backend.provider, backend.baseUrl, backend.apiKey, backend.label);
    } catch (error) {
      return failed(error, backend);
    }
  }
  return { ok: true, backend, endpointPolicy };
}

function readinessOf(resolution: ChainResolution): ModelReadiness {
  if (resolution.ok) {
    const { source, provider, model } = resolution.backend;
    return { usable: true, code: null, source, provider, model };
  }
  const code = modelUnavailableCodeSchema.safeParse(modelErrorCode(resolution.error));
  const { source, provider, model } = resolution.partial;
  return {
    usable: false,
    code: code.success ? code.data : 'model_not_configured',
    source: source ?? null,
    provider: provider ?? null,
    model: model ?? null,
  };
}
