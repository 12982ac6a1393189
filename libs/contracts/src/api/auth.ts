import { z } from 'zod';
import { emailSchema, idSchema, isoDateSchema } from './common.js';
import { invitationTokenSchema } from './invitations.js';
import { workspaceSummaryViewSchema } from './workspaces.js';

export const PASSWORD_MIN_LENGTH = 8;
/** Generous, but bounded: every password is fed to scrypt. */
export const PASSWORD_MAX_LENGTH = 1_024;

/**
 * With an invitation's token the new account joins the inviting workspace (the invitation's email must be
 * the account's) and gets no workspace of its own; without one (only under the `open` policy) it gets a
 * personal workspace it owns.
 */
export const signupRequestSchema = z.strictObject({
  email: emailSchema,
  password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH),
  displayName: z.string().trim().min(1).max(80),
  invitationToken: invitationTokenSchema.optional(),
});
export type SignupRequest = z.infer<typeof signupRequestSchema>;

/** The first admin signs in with LAZYBOY_APP_TOKEN as the password, so no minimum length here. */
export const loginRequestSchema = z.strictObject({
  email: emailSchema,
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const userViewSchema = z.object({
  id: idSchema,
  email: z.string(),
  displayName: z.string(),
  isAdmin: z.boolean(),
});
export type UserView = z.infer<typeof userViewSchema>;

/** Who is signed in and the workspaces they may use (only the token's own one for a workspace-limited token). */
export const meViewSchema = z.object({
  user: userViewSchema,
  workspaces: z.array(workspaceSummaryViewSchema),
});
export type MeView = z.infer<typeof meViewSchema>;

export const API_TOKEN_PREFIX = 'lbt_';

export const createApiTokenRequestSchema = z.strictObject({
  name: z.string().trim().min(1).max(80),
  /** Limits the token to one workspace the caller is a member of; absent: every workspace of the caller. */
  workspaceId: idSchema.optional(),
  /** Absent: the token never expires (revoke it instead). */
  expiresInDays: z.number().int().min(1).max(3_650).optional(),
});
export type CreateApiTokenRequest = z.infer<typeof createApiTokenRequestSchema>;

export const apiTokenViewSchema = z.object({
  id: idSchema,
  name: z.string(),
  /** The first characters of the token, to tell tokens apart; never enough to use it. */
  prefix: z.string(),
  workspaceId: idSchema.nullable(),
  lastUsedAt: isoDateSchema.nullable(),
  expiresAt: isoDateSchema.nullable(),
  createdAt: isoDateSchema,
});
export type ApiTokenView = z.infer<typeof apiTokenViewSchema>;

export const apiTokenListViewSchema = z.object({ items: z.array(apiTokenViewSchema) });
export type ApiTokenListView = z.infer<typeof apiTokenListViewSchema>;

/** Answer of a token creation: the only time the secret is shown. */
export const createdApiTokenViewSchema = apiTokenViewSchema.extend({ token: z.string() });
export type CreatedApiTokenView = z.infer<typeof createdApiTokenViewSchema>;
