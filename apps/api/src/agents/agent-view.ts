import { agentModelSettingsSchema, type AgentModelSettings, type AgentView, type ModelReadiness } from '@lazyboy/contracts';
import { z } from 'zod';
import type { Agent, Prisma } from '../persistence/generated/client.js';

// The stored modelSettings JSON may hold more than the API shows (per-kind round limits written by other
// parts of the service): the view keeps the known keys and drops the rest rather than failing.
const storedModelSettingsSchema = z.object(agentModelSettingsSchema.shape);
const KNOWN_SETTINGS = new Set(Object.keys(agentModelSettingsSchema.shape));

export function modelSettingsOf(stored: unknown): AgentModelSettings {
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
  return settings as AgentModelSettings;
}

/** Replaces the API-visible settings and keeps whatever else the stored JSON holds. */
export function mergeModelSettings(stored: unknown, next: AgentModelSettings): Prisma.InputJsonObject {
  const kept: Record<string, Prisma.InputJsonValue> = {};
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    for (const [key, value] of Object.entries(stored)) if (!KNOWN_SETTINGS.has(key)) kept[key] = value as Prisma.InputJsonValue; // read from a JSON column
  }
  return { ...kept, ...next };
}

/** What of an agent's model settings its viewer may see. */
export interface AgentViewer {
  /** Owners and admins, who may change the settings, see everything. */
  manager: boolean;
  /** The agent's key's last four characters, for a manager. */
  keyLast4: string | null;
}

/**
 * A member sees which provider and model the agent uses, not its base URL: like the workspace's (withheld
 * from members too), it can name a machine on the owner's LAN.
 */
export function toAgentView(agent: Agent, modelReadiness: ModelReadiness, viewer: AgentViewer): AgentView {
  const settings = modelSettingsOf(agent.modelSettings);
  const { baseUrl: _lanAddress, ...shareable } = settings;
  return {
    id: agent.id,
    workspaceId: agent.workspaceId,
    name: agent.name,
    avatarSeed: agent.avatarSeed,
    instructions: agent.instructions,
    computerMode: agent.computerMode,
    modelSettings: viewer.manager ? settings : shareable,
    hasModelApiKey: agent.modelApiKeyCipher !== null,
    modelApiKeyLast4: viewer.manager ? viewer.keyLast4 : null,
    modelReadiness,
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
  };
}
