import { z } from 'zod';
import { membershipRoleSchema, signupPolicySchema } from '../domain.js';
import { emailSchema, idSchema, isoDateSchema } from './common.js';

// Invitations to a workspace: a single-use link `/invite/<token>` for one email address, with a role and an
// expiry. The creator copies the link, shown once, when it is made; when the instance has a mail transport
// (LAZYBOY_SMTP_URL), the link is also mailed to the invited address.

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

/** What became of the mail with a new invitation's link. */
export const invitationDeliverySchema = z.enum([
  'mailed',
  /** The mail transport refused or could not be reached: the link is only in this answer, to copy. */
  'failed',
  /** The instance has no mail transport: copy the link. */
  'not_configured',
]);
export type InvitationDelivery = z.infer<typeof invitationDeliverySchema>;

/** Why a mail did not go out, told apart so people can act on it (never the server's own words). */
export const mailFailureReasonSchema = z.enum([
  /** Nothing answered at the SMTP URL's host and port (or its name does not resolve). */
  'unreachable',
  /** The server answered too slowly. */
  'timeout',
  /** TLS could not be set up (smtps:// to a plain server, a certificate that does not verify…). */
  'tls',
  /** The server refused the account of the SMTP URL. */
  'auth',
  /** The server refused the recipient's address. */
  'recipient_refused',
  /** The server refused the sender or the message. */
  'refused',
  /** Not sent: this address (or this inviter) had its hour's share of invitation mails already. */
  'rate_limited',
  'other',
]);
export type MailFailureReason = z.infer<typeof mailFailureReasonSchema>;

/** Answer of an invitation's creation: the only time its token is shown. */
export const createdInvitationViewSchema = invitationViewSchema.extend({
  token: invitationTokenSchema,
  /** `/invite/<token>`: the web app's origin in front makes the link to hand on. */
  path: z.string(),
  delivery: invitationDeliverySchema,
  /** Why the mail failed; null unless `delivery` is `failed`. */
  deliveryFailure: mailFailureReasonSchema.nullable(),
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
