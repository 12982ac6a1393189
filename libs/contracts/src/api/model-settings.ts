import { z } from 'zod';
import { modelProviderSchema } from '../model.js';
import { modelFailureCodeSchema, modelUnavailableCodeSchema } from '../run-error-codes.js';

// A workspace's model settings and the tools its settings page uses: the model list of an endpoint, a test
// request, the local model servers on this machine. Agents' own settings are in agents.ts.

/**
 * A model API key as people paste it: surrounding blanks dropped; printable ASCII without spaces, which
 * every provider's keys are (anything else could not travel in an Authorization header anyway).
 */
export const modelApiKeySchema = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .regex(/^[\x21-\x7e]+$/, 'a model API key is printable ASCII without spaces');

/** Where an agent's model comes from: its own settings, its workspace's, or the host's environment. */
export const credentialSourceSchema = z.enum(['agent', 'workspace', 'env']);
export type CredentialSourceName = z.infer<typeof credentialSourceSchema>;

const modelPathSchema = z
  .string()
  .min(1)
  .max(1_000)
  .refine((path) => path.startsWith('/') && path.toLowerCase().endsWith('.gguf') && !path.split('/').includes('..'), {
    message: 'the model file is an absolute path on the server ending in .gguf',
  });

/** A workspace's model defaults: the middle link of the credential chain (agent → workspace → environment). */
export const workspaceModelSettingsSchema = z.strictObject({
  provider: modelProviderSchema.optional(),
  baseUrl: z.url().max(2_000).optional(),
  model: z.string().min(1).max(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** The local-gguf provider's model file on the server; only where the instance allows local model servers. */
  modelPath: modelPathSchema.optional(),
});
export type WorkspaceModelSettings = z.infer<typeof workspaceModelSettingsSchema>;

/**
 * Whether an agent (or, for a workspace, an agent without settings of its own) has a model it can use, as
 * far as can be known without asking the model: a provider, a model name, a key where the provider needs
 * one, an endpoint this instance allows. A chat shows `code` in its person's language before any run starts.
 */
export const modelReadinessSchema = z.object({
  usable: z.boolean(),
  /** Why not; null when usable. */
  code: modelUnavailableCodeSchema.nullable(),
  /** Which link of the chain names the endpoint; null when none does. */
  source: credentialSourceSchema.nullable(),
  provider: modelProviderSchema.nullable(),
  model: z.string().nullable(),
});
export type ModelReadiness = z.infer<typeof modelReadinessSchema>;

/** The host's environment model for a workspace (MODEL_ENV_VARIABLES; the instance decides which workspaces). */
export const hostModelAvailabilitySchema = z.enum([
  /** The environment names a model and serves this workspace. */
  'available',
  /** The environment names a model, but this instance keeps it for the first workspace. */
  'not_for_this_workspace',
  /** The environment names no model. */
  'none',
]);
export type HostModelAvailability = z.infer<typeof hostModelAvailabilitySchema>;

/** The model part of a workspace's view (GET /api/workspaces/:id). The key itself is never shown. */
export const workspaceModelViewSchema = z.object({
  /** The saved settings, for owners and admins; empty for members, who learn what agents use from `readiness`. */
  settings: workspaceModelSettingsSchema,
  hasApiKey: z.boolean(),
  /** The stored key's last four characters, for owners and admins; null for members and when there is none. */
  apiKeyLast4: z.string().nullable(),
  /** What an agent of this workspace without model settings of its own uses. */
  readiness: modelReadinessSchema,
  /** The instance lets model settings name loopback servers (Ollama on 127.0.0.1) and local model files. */
  localModelServersAllowed: z.boolean(),
  hostModel: hostModelAvailabilitySchema,
});
export type WorkspaceModelView = z.infer<typeof workspaceModelViewSchema>;

/** Why a model check (list, test) failed. */
export const modelCheckFailureSchema = z.object({
  code: modelFailureCodeSchema,
  /** The HTTP status the model server answered with; null when it did not answer (or was never asked). */
  status: z.number().int().nullable(),
  /** What went wrong in one line, with the provider's own text (never a key). */
  message: z.string(),
  /** The provider's own error text alone, when it sent one. */
  providerMessage: z.string().nullable(),
});
export type ModelCheckFailure = z.infer<typeof modelCheckFailureSchema>;

/** GET /api/workspaces/:id/model/models: an endpoint's models; the saved settings' endpoint without a query. */
export const modelListQuerySchema = z.strictObject({
  provider: modelProviderSchema.optional(),
  baseUrl: z.url().max(2_000).optional(),
});
export type ModelListQuery = z.infer<typeof modelListQuerySchema>;

export const modelListViewSchema = z.object({
  ok: z.boolean(),
  provider: modelProviderSchema,
  /** The endpoint asked; null for local-gguf (none) and for the host's own (not shown to workspaces). */
  baseUrl: z.string().nullable(),
  /** The model ids the endpoint's /models lists, in its order; empty when it failed. */
  models: z.array(z.string()),
  /** Whether a stored key went along (the workspace's, or the host's for the host's own endpoint). */
  sentApiKey: z.boolean(),
  error: modelCheckFailureSchema.nullable(),
});
export type ModelListView = z.infer<typeof modelListViewSchema>;

/**
 * POST /api/workspaces/:id/model/test: one small real request. Without `modelSettings`, the saved settings;
 * without `modelApiKey`, the saved key, and only for the endpoint it was saved with.
 */
export const modelTestRequestSchema = z.strictObject({
  modelSettings: workspaceModelSettingsSchema.optional(),
  modelApiKey: modelApiKeySchema.optional(),
});
export type ModelTestRequest = z.infer<typeof modelTestRequestSchema>;

export const modelTestViewSchema = z.object({
  ok: z.boolean(),
  /** What was asked, as the credential chain resolved it; null when it could not be resolved. */
  provider: modelProviderSchema.nullable(),
  model: z.string().nullable(),
  /** Null also for local-gguf and for the host's own endpoint (not shown to workspaces). */
  baseUrl: z.string().nullable(),
  source: credentialSourceSchema.nullable(),
  sentApiKey: z.boolean(),
  /** The model's answer (shortened) when ok. */
  reply: z.string().nullable(),
  error: modelCheckFailureSchema.nullable(),
});
export type ModelTestView = z.infer<typeof modelTestViewSchema>;

/** The model servers that answer on their usual loopback ports. */
export const localModelServerKindSchema = z.enum(['ollama', 'llama.cpp', 'lm-studio', 'vllm']);
export type LocalModelServerKind = z.infer<typeof localModelServerKindSchema>;

export const localModelServerViewSchema = z.object({
  kind: localModelServerKindSchema,
  /** The base URL to save (OpenAI-compatible, ending in /v1). */
  baseUrl: z.string(),
  provider: modelProviderSchema,
  models: z.array(z.string()),
});
export type LocalModelServerView = z.infer<typeof localModelServerViewSchema>;

export const localModelServerListViewSchema = z.object({
  /** Whether this instance lets model settings name local servers; when not, `servers` is empty. */
  allowed: z.boolean(),
  /** Why the list is empty without looking; null when the servers were looked for. */
  reason: z.enum(['local_model_servers_not_allowed']).nullable(),
  servers: z.array(localModelServerViewSchema),
});
export type LocalModelServerListView = z.infer<typeof localModelServerListViewSchema>;
