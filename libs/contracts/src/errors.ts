import { z } from 'zod';

/** Stable, machine-readable error codes every API error body carries. */
export const apiErrorCodeSchema = z.enum([
  'BAD_REQUEST',
  'VALIDATION_FAILED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMITED',
  'NOT_READY',
  'INTERNAL',
]);
export type ApiErrorCode = z.infer<typeof apiErrorCodeSchema>;

/**
 * Why a CONFLICT (the request was fine but the state it met was not) or a FORBIDDEN was refused. The
 * message explains it in English; clients show people their own text keyed by this reason. Stable: clients
 * match on it.
 */
export const apiErrorReasonSchema = z.enum([
  /** The computer is stopped, failed or was never booted. */
  'computer_not_running',
  /** The screen a viewer ticket named has gone away. */
  'screen_gone',
  /** Another person has control of the screen. */
  'control_held',
  /** Every screen of the Team computer is taken by a working agent. */
  'screens_full',
  /** An agent is working on the computer, so it cannot be suspended or stopped. */
  'computer_busy',
  /** The computer's worker refused the call (its own code is in details.workerCode). */
  'computer_refused',
  /** The message's clientNonce was already used for a different message. */
  'nonce_reused',
  /** The run is already over. */
  'run_ended',
  /** The run is not parked on a question. */
  'run_not_waiting',
  /** An admin tried to take away their own admin rights. */
  'own_admin_rights',
  /** An admin tried to disable their own account. */
  'own_account_disabled',
  /** Another agent of the workspace has this name. */
  'name_taken',
  /** The member was changed or removed since the caller looked. */
  'member_changed',
  /** The change would leave the workspace without an owner. */
  'last_owner',
  /** The person is already a member of the workspace. */
  'already_member',
  /** An account with this email exists. */
  'email_taken',
  /** FORBIDDEN: the instance's sign-up policy is `closed`: nobody makes a new account. */
  'signup_closed',
  /** FORBIDDEN: the instance's sign-up policy is `invite` and the sign-up brought no invitation. */
  'signup_invitation_required',
  /** FORBIDDEN: the invitation was sent to another email address than the account's. */
  'invitation_email_mismatch',
  /** The invitation's time ran out. */
  'invitation_expired',
  /** The invitation was accepted already (each is good for one account). */
  'invitation_used',
  /** The invitation was revoked, by an owner or admin or because its sender lost the right to invite. */
  'invitation_revoked',
  /** The workspace has as many pending invitations as it may have. */
  'too_many_invitations',
  /** FORBIDDEN: the email's pending invitation is for a role the caller may not invite; replacing would revoke it. */
  'invitation_role_forbidden',
  /** FORBIDDEN: the sign-up policy is `invite` or `closed`, under which only instance admins make workspaces. */
  'workspace_creation_restricted',
  /** The vault already holds an account with this site and username for the same agent (or shared set). */
  'vault_account_exists',
  /** The vault holds VAULT_ACCOUNTS_MAX accounts for this agent (or shared set). */
  'vault_full',
  /** FORBIDDEN: the password a person re-entered to confirm it is them is not theirs. */
  'password_mismatch',
]);
export type ApiErrorReason = z.infer<typeof apiErrorReasonSchema>;

export const apiErrorBodySchema = z.object({
  error: z.object({
    code: apiErrorCodeSchema,
    message: z.string(),
    // A reason newer than the client reads as none: the error stays readable and gets the generic text.
    reason: apiErrorReasonSchema.optional().catch(undefined),
    details: z.unknown().optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
