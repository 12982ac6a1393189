import { botModelSettingsSchema, type BotModelSettings, type BotView, type ModelReadiness } from '@lazyboy/contracts';
import { z } from 'zod';
import type { Bot, Prisma } from '../persistence/generated/client.js';

// The stored modelSettings JSON may hold more than the API shows (per-kind round limits written by other
// parts of the service): the view keeps the known keys and drops the rest rather than failing.
const storedModelSettingsSchema = z.object(botModelSettingsSchema.shape);
const KNOWN_SETTINGS = new Set(Object.keys(botModelSettingsSchema.shape));

export function modelSettingsOf(stored: unknown): BotModelSettings {
  const parsed = storedModelSettingsSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  // One bad value must not hide the others: keep each known key that is valid on its own.
  const settings: Record<string, unknown> = {};
  if (stored && typeof stored === 'object') {
    for (const [key, value] of Object.entries(stored)) {
      if (!KNOWN_SETTINGS.has(key)) continue;
      if (storedModelSettingsSchema.safeParse({ [key]: value }).success) settings[key] = value;
    }
  }
  return settings as BotModelSettings;
}

/** Replaces the API-visible settings and keeps whatever else the stored JSON holds. */
export function mergeModelSettings(stored: unknown, next: BotModelSettings): Prisma.InputJsonObject {
  const kept: Record<string, Prisma.InputJsonValue> = {};
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    for (const [key, value] of Object.entries(stored)) if (!KNOWN_SETTINGS.has(key)) kept[key] = value as Prisma.InputJsonValue; // read from a JSON column
  }
  return { ...kept, ...next };
}

/** `keyLast4`: the agent's key's last four characters where the viewer may see them (owners and admins). */
export function toBotView(bot: Bot, modelReadiness: ModelReadiness, keyLast4: string | null): BotView {
  return {
    id: bot.id,
    workspaceId: bot.workspaceId,
    name: bot.name,
    avatarSeed: bot.avatarSeed,
    instructions: bot.instructions,
    computerMode: bot.computerMode,
    modelSettings: modelSettingsOf(bot.modelSettings),
    hasModelApiKey: bot.modelApiKeyCipher !== null,
    modelApiKeyLast4: keyLast4,
    modelReadiness,
    createdAt: bot.createdAt.toISOString(),
    updatedAt: bot.updatedAt.toISOString(),
  };
}
