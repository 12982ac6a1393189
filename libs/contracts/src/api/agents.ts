import { z } from 'zod';
import { computerModeSchema } from '../domain.js';
import { modelProviderSchema } from '../model.js';
import { idSchema, isoDateSchema } from './common.js';
import { modelApiKeySchema, modelReadinessSchema } from './model-settings.js';

/** An agent's own model settings: the first link of the credential chain (agent → workspace → environment). */
export const agentModelSettingsSchema = z.strictObject({
  provider: modelProviderSchema.optional(),
  baseUrl: z.url().max(2_000).optional(),
  model: z.string().min(1).max(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
});
export type AgentModelSettings = z.infer<typeof agentModelSettingsSchema>;

const agentName = z.string().trim().min(1).max(80);

export const createAgentRequestSchema = z.strictObject({
  name: agentName,
  /** Seed of the Blobatar avatar; random when absent. */
  avatarSeed: z.string().min(1).max(64).optional(),
  instructions: z.string().max(20_000).optional(),
  computerMode: computerModeSchema.optional(),
  modelSettings: agentModelSettingsSchema.optional(),
});
export type CreateAgentRequest = z.infer<typeof createAgentRequestSchema>;

export const updateAgentRequestSchema = z
  .strictObject({
    name: agentName.optional(),
    avatarSeed: z.string().min(1).max(64).optional(),
    instructions: z.string().max(20_000).optional(),
    computerMode: computerModeSchema.optional(),
    modelSettings: agentModelSettingsSchema.optional(),
    /** A new model API key for this agent (stored encrypted, never returned); null removes it. */
    modelApiKey: modelApiKeySchema.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'nothing to change');
export type UpdateAgentRequest = z.infer<typeof updateAgentRequestSchema>;

export const agentViewSchema = z.object({
  id: idSchema,
  workspaceId: idSchema,
  name: z.string(),
  avatarSeed: z.string(),
  instructions: z.string(),
  computerMode: computerModeSchema,
  modelSettings: agentModelSettingsSchema,
  hasModelApiKey: z.boolean(),
  /** The agent's own key's last four characters, for owners and admins; null for members and when there is none. */
  modelApiKeyLast4: z.string().nullable(),
  /** Whether the agent has a model it can use (its own settings, its workspace's, the host's), and why not. */
  modelReadiness: modelReadinessSchema,
  createdAt: isoDateSchema,
  updatedAt: isoDateSchema,
});
export type AgentView = z.infer<typeof agentViewSchema>;
