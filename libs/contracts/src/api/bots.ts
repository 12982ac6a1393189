import { z } from 'zod';
import { computerModeSchema } from '../domain.js';
import { modelProviderSchema } from '../model.js';
import { idSchema, isoDateSchema } from './common.js';
import { modelApiKeySchema, modelReadinessSchema } from './model-settings.js';

/** An agent's own model settings: the first link of the credential chain (bot → workspace → environment). */
export const botModelSettingsSchema = z.strictObject({
  provider: modelProviderSchema.optional(),
  baseUrl: z.url().max(2_000).optional(),
  model: z.string().min(1).max(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
});
export type BotModelSettings = z.infer<typeof botModelSettingsSchema>;

const botName = z.string().trim().min(1).max(80);

export const createBotRequestSchema = z.strictObject({
  name: botName,
  /** Seed of the Blobatar avatar; random when absent. */
  avatarSeed: z.string().min(1).max(64).optional(),
  instructions: z.string().max(20_000).optional(),
  computerMode: computerModeSchema.optional(),
  modelSettings: botModelSettingsSchema.optional(),
});
export type CreateBotRequest = z.infer<typeof createBotRequestSchema>;

export const updateBotRequestSchema = z
  .strictObject({
    name: botName.optional(),
    avatarSeed: z.string().min(1).max(64).optional(),
    instructions: z.string().max(20_000).optional(),
    computerMode: computerModeSchema.optional(),
    modelSettings: botModelSettingsSchema.optional(),
    /** A new model API key for this agent (stored encrypted, never returned); null removes it. */
    modelApiKey: modelApiKeySchema.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'nothing to change');
export type UpdateBotRequest = z.infer<typeof updateBotRequestSchema>;

export const botViewSchema = z.object({
  id: idSchema,
  workspaceId: idSchema,
  name: z.string(),
  avatarSeed: z.string(),
  instructions: z.string(),
  computerMode: computerModeSchema,
  modelSettings: botModelSettingsSchema,
  hasModelApiKey: z.boolean(),
  /** The agent's own key's last four characters, for owners and admins; null for members and when there is none. */
  modelApiKeyLast4: z.string().nullable(),
  /** Whether the agent has a model it can use (its own settings, its workspace's, the host's), and why not. */
  modelReadiness: modelReadinessSchema,
  createdAt: isoDateSchema,
  updatedAt: isoDateSchema,
});
export type BotView = z.infer<typeof botViewSchema>;
