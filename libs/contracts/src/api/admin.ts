import { z } from 'zod';
import { membershipRoleSchema, signupPolicySchema } from '../domain.js';
import { runStatusSchema } from '../run-lifecycle.js';
import { idSchema, isoDateSchema, pageQuerySchema, pageSchema } from './common.js';
import { computerViewSchema } from './computers.js';
import { runViewSchema } from './runs.js';

// The instance administrators' dashboard (/api/admin/…): every workspace at once, so none of these views
// is scoped to the caller's memberships.

const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

// ------------------------------------------------------------------------------------------------ users

export const adminMembershipViewSchema = z.object({
  workspaceId: idSchema,
  workspaceName: z.string(),
  workspaceSlug: z.string(),
  role: membershipRoleSchema,
});
export type AdminMembershipView = z.infer<typeof adminMembershipViewSchema>;

export const adminUserViewSchema = z.object({
  id: idSchema,
  email: z.string(),
  displayName: z.string(),
  isAdmin: z.boolean(),
  disabledAt: isoDateSchema.nullable(),
  lastLoginAt: isoDateSchema.nullable(),
  createdAt: isoDateSchema,
  memberships: z.array(adminMembershipViewSchema),
});
export type AdminUserView = z.infer<typeof adminUserViewSchema>;

/** Newest accounts first; `before` is the id of the last user of the previous page. */
export const adminUserListQuerySchema = pageQuerySchema;
export type AdminUserListQuery = z.infer<typeof adminUserListQuerySchema>;

export const adminUserListViewSchema = pageSchema(adminUserViewSchema);
export type AdminUserListView = z.infer<typeof adminUserListViewSchema>;

/**
 * Grant or revoke instance administration, disable or re-enable an account. Disabling signs the user out
 * everywhere (their login sessions are revoked; their API tokens stop working while disabled).
 */
export const updateAdminUserRequestSchema = z
  .strictObject({ isAdmin: z.boolean().optional(), disabled: z.boolean().optional() })
  .refine((body) => body.isAdmin !== undefined || body.disabled !== undefined, { message: 'set isAdmin or disabled' });
export type UpdateAdminUserRequest = z.infer<typeof updateAdminUserRequestSchema>;

// ------------------------------------------------------------------------------------------- workspaces

export const adminWorkspaceViewSchema = z.object({
  id: idSchema,
  name: z.string(),
  slug: z.string(),
  memberCount: z.number().int(),
  agentCount: z.number().int(),
  createdAt: isoDateSchema,
});
export type AdminWorkspaceView = z.infer<typeof adminWorkspaceViewSchema>;

/** Newest workspaces first; `before` is the id of the last workspace of the previous page. */
export const adminWorkspaceListQuerySchema = pageQuerySchema;
export type AdminWorkspaceListQuery = z.infer<typeof adminWorkspaceListQuerySchema>;

export const adminWorkspaceListViewSchema = pageSchema(adminWorkspaceViewSchema);
export type AdminWorkspaceListView = z.infer<typeof adminWorkspaceListViewSchema>;

// ------------------------------------------------------------------------------------------- computers

/** A computer with the names the dashboard shows next to it. */
export const adminComputerViewSchema = computerViewSchema.extend({
  workspaceName: z.string(),
  /** The agent owning a private computer; null for a Team computer. */
  agentName: z.string().nullable(),
  createdAt: isoDateSchema,
});
export type AdminComputerView = z.infer<typeof adminComputerViewSchema>;

export const adminComputerListQuerySchema = z.strictObject({
  workspaceId: idSchema.optional(),
  limit: limit(500, 200),
});
export type AdminComputerListQuery = z.infer<typeof adminComputerListQuerySchema>;

export const adminComputerListViewSchema = z.object({ items: z.array(adminComputerViewSchema) });
export type AdminComputerListView = z.infer<typeof adminComputerListViewSchema>;

// ------------------------------------------------------------------------------------------------- runs

export const adminRunListQuerySchema = z.strictObject({
  status: runStatusSchema.optional(),
  workspaceId: idSchema.optional(),
  agentId: idSchema.optional(),
  limit: limit(200, 50),
});
export type AdminRunListQuery = z.infer<typeof adminRunListQuerySchema>;

/** A run with the names the dashboard shows beside it. */
export const adminRunViewSchema = runViewSchema.extend({ agentName: z.string(), workspaceName: z.string() });
export type AdminRunView = z.infer<typeof adminRunViewSchema>;

export const adminRunListViewSchema = z.object({ items: z.array(adminRunViewSchema) });
export type AdminRunListView = z.infer<typeof adminRunListViewSchema>;

// --------------------------------------------------------------------------------------------- settings

/** Which workspaces the host's environment model (MODEL_ENV_VARIABLES, keys included) serves. */
export const environmentModelScopeSchema = z.enum([
  /** Only the first workspace (the first admin's): a stranger who signs up cannot spend the host's key. */
  'first_workspace',
  /** Every workspace without a model of its own. */
  'all_workspaces',
]);
export type EnvironmentModelScope = z.infer<typeof environmentModelScopeSchema>;

export const instanceSettingsViewSchema = z.object({
  /**
   * Agents' and workspaces' model settings may name model servers on loopback (Ollama on 127.0.0.1) and the
   * cluster's own service names, and workspaces local model files. Link-local and metadata addresses are
   * refused whatever this says.
   */
  allowLocalModelServers: z.boolean(),
  /** Who may sign up: LAZYBOY_SIGNUP until an instance admin sets it. */
  signupPolicy: signupPolicySchema,
  environmentModelScope: environmentModelScopeSchema,
  /** LAZYBOY_SMTP_URL is set: invitation links are mailed (read-only: the environment decides). */
  mailConfigured: z.boolean(),
  /** When an instance admin last changed a setting; null while the environment decides them all. */
  updatedAt: isoDateSchema.nullable(),
});
export type InstanceSettingsView = z.infer<typeof instanceSettingsViewSchema>;

/** Each setting given is saved and from then on overrides its environment variable; the others stay as they are. */
export const updateInstanceSettingsRequestSchema = z
  .strictObject({
    allowLocalModelServers: z.boolean().optional(),
    signupPolicy: signupPolicySchema.optional(),
    environmentModelScope: environmentModelScopeSchema.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'nothing to change');
export type UpdateInstanceSettingsRequest = z.infer<typeof updateInstanceSettingsRequestSchema>;

// ------------------------------------------------------------------------------------------------ audit

export const adminAuditQuerySchema = z.strictObject({
  action: z.string().trim().min(1).max(100).optional(),
  workspaceId: idSchema.optional(),
  limit: limit(500, 100),
});
export type AdminAuditQuery = z.infer<typeof adminAuditQuerySchema>;

export const auditEntryViewSchema = z.object({
  /** The row's sequence number (a bigint, as a string). */
  id: z.string(),
  workspaceId: idSchema.nullable(),
  actorUserId: idSchema.nullable(),
  actorEmail: z.string().nullable(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
  createdAt: isoDateSchema,
});
export type AuditEntryView = z.infer<typeof auditEntryViewSchema>;

export const adminAuditListViewSchema = z.object({ items: z.array(auditEntryViewSchema) });
export type AdminAuditListView = z.infer<typeof adminAuditListViewSchema>;
