import { z } from 'zod';
import { membershipRoleSchema, signupPolicySchema } from '../domain.js';
import { emailSchema, idSchema, isoDateSchema } from './common.js';

// Invitations to a workspace: a single-use link `/invite/<token>` for one email address, with a role and an
// expiry. No mail is sent: the creator copies the link, shown once, when it is made.

export const INVITATION_DEFAULT_DAYS = 7;
export const INVITATION_MAX_DAYS = 30;
/** Pending invitations one workspace may hold at once. */
export const INVITATION_PENDING_LIMIT = 200;
/** Ended invitations (accepted, revoked, expired) the list shows besides the pending ones, newest first. */
export const INVITATION_ENDED_LISTED = 50;

/** The secret of an invitation link: 32 random bytes, base64url (43 characters). */
export const invitationTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'not an invitation token');

/** The path of the sign-up page for an invitation, on the web app's origin. */
export function invitationPath(token: string): string {
  return `/invite/${token}`;
}

export const invitationStatusSchema = z.enum(['pending', 'accepted', 'revoked', 'expired']);
export type InvitationStatus = z.infer<typeof invitationStatusSchema>;

/** Admins and owners invite; only owners invite owners. A new invitation for the same email replaces a pending one. */
export const createInvitationRequestSchema = z.strictObject({
  email: emailSchema,
  role: membershipRoleSchema.default('member'),
  expiresInDays: z.number().int().min(1).max(INVITATION_MAX_DAYS).default(INVITATION_DEFAULT_DAYS),
});
export type CreateInvitationRequest = z.infer<typeof createInvitationRequestSchema>;

/** An invitation as the workspace's admins list it: never its token. */
export const invitationViewSchema = z.object({
  id: idSchema,
  workspaceId: idSchema,
  email: z.string(),
  role: membershipRoleSchema,
  status: invitationStatusSchema,
  /** Null once the inviting account is gone. */
  invitedBy: z.object({ userId: idSchema, displayName: z.string() }).nullable(),
  expiresAt: isoDateSchema,
  createdAt: isoDateSchema,
  acceptedAt: isoDateSchema.nullable(),
  revokedAt: isoDateSchema.nullable(),
});
export type InvitationView = z.infer<typeof invitationViewSchema>;

/** Every pending invitation, then the most recently ended ones; newest first. */
export const invitationListViewSchema = z.object({ items: z.array(invitationViewSchema) });
export type InvitationListView = z.infer<typeof invitationListViewSchema>;

/** Answer of an invitation's creation: the only time its token is shown. */
export const createdInvitationViewSchema = invitationViewSchema.extend({
  token: invitationTokenSchema,
  /** `/invite/<token>`: the web app's origin in front makes the link to hand on. */
  path: z.string(),
});
export type CreatedInvitationView = z.infer<typeof createdInvitationViewSchema>;

/** What the sign-up page of an invitation link may show, to anyone holding the link. */
export const invitationPreviewViewSchema = z.object({
  workspaceName: z.string(),
  role: membershipRoleSchema,
  inviterDisplayName: z.string().nullable(),
  status: invitationStatusSchema,
  /** Still pending: it can be accepted now. */
  valid: z.boolean(),
  expiresAt: isoDateSchema,
  /** A new account may be made through it (false under the `closed` policy: sign in and accept instead). */
  signupAllowed: z.boolean(),
});
export type InvitationPreviewView = z.infer<typeof invitationPreviewViewSchema>;

/** Who may sign up on this instance, for the sign-in page. */
export const signupPolicyViewSchema = z.object({ signup: signupPolicySchema });
export type SignupPolicyView = z.infer<typeof signupPolicyViewSchema>;
