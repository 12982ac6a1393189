import { z } from 'zod';
import { membershipRoleSchema } from '../domain.js';
import { emailSchema, idSchema, isoDateSchema } from './common.js';
import { modelApiKeySchema, workspaceModelSettingsSchema, workspaceModelViewSchema } from './model-settings.js';

const workspaceName = z.string().trim().min(1).max(80);

const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** The IANA name of a time zone (Asia/Taipei, UTC) as the platform's time zone database spells it; else undefined. */
export function canonicalTimeZone(name: string): string | undefined {
  if (!IANA_NAME.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** An IANA time zone name, checked against the time zone database and stored in its canonical spelling. */
export const timeZoneSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .transform((name, ctx) => {
    const canonical = canonicalTimeZone(name);
    if (canonical !== undefined) return canonical;
    ctx.addIssue({ code: 'custom', message: 'not an IANA time zone name (such as Asia/Taipei or UTC)' });
    return z.NEVER;
  });

/** A workspace as its members list it: with the caller's own role in it. */
export const workspaceSummaryViewSchema = z.object({
  id: idSchema,
  name: z.string(),
  slug: z.string(),
  role: membershipRoleSchema,
});
export type WorkspaceSummaryView = z.infer<typeof workspaceSummaryViewSchema>;

/** A workspace with its settings: the one place to read them (members see the model settings without the key). */
export const workspaceViewSchema = workspaceSummaryViewSchema.extend({
  timezone: z.string(),
  memberCount: z.number().int(),
  createdAt: isoDateSchema,
  updatedAt: isoDateSchema,
  model: workspaceModelViewSchema,
});
export type WorkspaceView = z.infer<typeof workspaceViewSchema>;

export const workspaceListViewSchema = z.object({ items: z.array(workspaceSummaryViewSchema) });
export type WorkspaceListView = z.infer<typeof workspaceListViewSchema>;

/** The creator becomes its owner; the slug is derived from the name and made unique. */
export const createWorkspaceRequestSchema = z.strictObject({ name: workspaceName });
export type CreateWorkspaceRequest = z.infer<typeof createWorkspaceRequestSchema>;

/**
 * PATCH /api/workspaces/:id, the one place a workspace's settings change (owners and admins): its name, its
 * time zone, its model settings (replaced as a whole) and its model key. A new provider or base URL drops the
 * stored key unless the same request brings one (or removes it: null).
 */
export const updateWorkspaceRequestSchema = z
  .strictObject({
    name: workspaceName.optional(),
    timezone: timeZoneSchema.optional(),
    modelSettings: workspaceModelSettingsSchema.optional(),
    /** A new model API key for the workspace (stored encrypted, never returned); null removes it. */
    modelApiKey: modelApiKeySchema.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'nothing to change');
export type UpdateWorkspaceRequest = z.infer<typeof updateWorkspaceRequestSchema>;

export const memberViewSchema = z.object({
  userId: idSchema,
  email: z.string(),
  displayName: z.string(),
  role: membershipRoleSchema,
  joinedAt: isoDateSchema,
});
export type MemberView = z.infer<typeof memberViewSchema>;

export const memberListViewSchema = z.object({ items: z.array(memberViewSchema) });
export type MemberListView = z.infer<typeof memberListViewSchema>;

/** Adds an existing user (by sign-in email) to the workspace. Only owners may add owners. */
export const addMemberRequestSchema = z.strictObject({
  email: emailSchema,
  role: membershipRoleSchema.default('member'),
});
export type AddMemberRequest = z.infer<typeof addMemberRequestSchema>;

/** Only owners may grant or revoke the owner role; the last owner keeps it. */
export const updateMemberRequestSchema = z.strictObject({ role: membershipRoleSchema });
export type UpdateMemberRequest = z.infer<typeof updateMemberRequestSchema>;
