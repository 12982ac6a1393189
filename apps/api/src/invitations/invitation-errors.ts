import { INVITATION_PENDING_LIMIT } from '@lazyboy/contracts';
import { ApiError, conflict, forbidden, notFound } from '../common/api-error.js';
import type { AcceptRefusal, CreateRefusal } from './invitations.repository.js';

/** The answer to an invitation that cannot be accepted (by sign-up or by a signed-in person). */
export function acceptRefused(refusal: AcceptRefusal | 'email_taken'): ApiError {
  switch (refusal) {
    case 'not_found':
      return notFound('invitation');
    case 'used':
      return conflict('invitation_used', 'this invitation was used already: ask for a new one');
    case 'revoked':
      return conflict('invitation_revoked', 'this invitation was revoked: ask for a new one');
    case 'expired':
      return conflict('invitation_expired', 'this invitation has expired: ask for a new one');
    case 'email_mismatch':
      return forbidden('this invitation was sent to another email address', 'invitation_email_mismatch');
    case 'already_member':
      return conflict('already_member', 'already a member of this workspace');
    case 'email_taken':
      return conflict('email_taken', 'an account with this email already exists: sign in and accept the invitation');
  }
}

export function createRefused(refusal: CreateRefusal): ApiError {
  switch (refusal) {
    case 'already_member':
      return conflict('already_member', 'this email belongs to a member of the workspace already');
    case 'too_many':
      return conflict(
        'too_many_invitations',
        `a workspace holds at most ${INVITATION_PENDING_LIMIT} pending invitations: revoke some first`,
      );
    case 'inviter_changed':
      return conflict('member_changed', 'your role in the workspace changed meanwhile: reload and try again');
    case 'replaces_higher_role':
      return forbidden(
        'this email has a pending invitation for a role you may not invite: only an owner may replace or revoke it',
        'invitation_role_forbidden',
      );
  }
}
