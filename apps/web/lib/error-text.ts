import type { ApiErrorReason } from '@lazyboy/contracts';
import { fill, type Messages } from '../locales';
import { ApiError } from './api';

/**
 * What to tell the person about a failed request, in their language. The API's English message is never
 * shown: a conflict or a refusal with a reason gets the text of its reason (a conflict without one, or with
 * one this build does not know, the generic conflict text; a refusal the generic "not allowed"), refused
 * input names the bad fields from the API's details, every other failure gets its code's text.
 */
export function errorText(error: unknown, t: Messages): string {
  if (!(error instanceof ApiError)) return t.errorUnexpected;
  switch (error.code) {
    case 'NETWORK':
      return t.errorNetwork;
    case 'UNREADABLE':
    case 'INTERNAL':
      return t.errorUnexpected;
    case 'RATE_LIMITED':
      return t.errorRateLimited;
    case 'NOT_READY':
      return t.errorNotReady;
    case 'NOT_FOUND':
      return t.errorNotFound;
    case 'FORBIDDEN':
      return t[reasonKey(error.reason) ?? 'errorForbidden'];
    case 'UNAUTHENTICATED':
      return t.errorSignedOut;
    case 'BAD_REQUEST':
      return t.errorBadRequest;
    case 'CONFLICT':
      return t[reasonKey(error.reason) ?? 'errorConflict'];
    case 'VALIDATION_FAILED':
      return validationText(error.details, t);
  }
}

/** A text for every reason: a reason added to the contracts without one here fails the type check. */
export const REASON_TEXT: Record<ApiErrorReason, keyof Messages> = {
  computer_not_running: 'errorConflictComputerNotRunning',
  screen_gone: 'errorConflictScreenGone',
  control_held: 'errorConflictControlHeld',
  screens_full: 'errorConflictScreensFull',
  computer_busy: 'errorConflictComputerBusy',
  computer_refused: 'errorConflictComputerRefused',
  nonce_reused: 'errorConflictNonceReused',
  run_ended: 'errorConflictRunEnded',
  run_not_waiting: 'errorConflictRunNotWaiting',
  own_admin_rights: 'errorConflictOwnAdminRights',
  own_account_disabled: 'errorConflictOwnAccountDisabled',
  name_taken: 'errorConflictNameTaken',
  member_changed: 'errorConflictMemberChanged',
  last_owner: 'errorConflictLastOwner',
  already_member: 'errorConflictAlreadyMember',
  email_taken: 'errorConflictEmailTaken',
  signup_closed: 'errorSignupClosed',
  signup_invitation_required: 'errorSignupInvitationRequired',
  invitation_email_mismatch: 'errorInvitationEmailMismatch',
  invitation_expired: 'errorInvitationExpired',
  invitation_used: 'errorInvitationUsed',
  invitation_revoked: 'errorInvitationRevoked',
  too_many_invitations: 'errorTooManyInvitations',
  invitation_role_forbidden: 'errorInvitationRoleForbidden',
  workspace_creation_restricted: 'errorWorkspaceCreationRestricted',
  vault_account_exists: 'errorVaultAccountExists',
  vault_full: 'errorVaultFull',
  password_mismatch: 'errorPasswordMismatch',
};

function reasonKey(reason: ApiErrorReason | undefined): keyof Messages | undefined {
  // hasOwn, not a plain lookup: an ApiError built by hand may carry any string.
  return reason !== undefined && Object.hasOwn(REASON_TEXT, reason) ? REASON_TEXT[reason] : undefined;
}

/** The bad fields ("name", "members.0.email") from `{ issues: { path }[] }`, each once, in order. */
function invalidFields(details: unknown): string[] {
  const issues = (details as { issues?: unknown } | null | undefined)?.issues;
  if (!Array.isArray(issues)) return [];
  // The API joins each path with '.' already; a raw zod path (an array) is joined the same way.
  const paths = issues.map((issue: unknown) => {
    const path = (issue as { path?: unknown } | null)?.path;
    return Array.isArray(path) ? path.join('.') : path;
  });
  return [...new Set(paths.filter((path): path is string => typeof path === 'string' && path !== ''))];
}

/**
 * Fields of the settings forms by the names the person saw on the page; any other path is shown as the API
 * named it (ambiguous ones, like `name`, too: the form's own label is next to it).
 */
const FIELD_LABEL: Record<string, keyof Messages> = {
  timezone: 'settingsTimezone',
  baseUrl: 'modelBaseUrl',
  'modelSettings.baseUrl': 'modelBaseUrl',
  'modelSettings.model': 'modelName',
  'modelSettings.modelPath': 'modelPath',
  modelApiKey: 'modelApiKey',
  instructions: 'agentInstructions',
  email: 'email',
  site: 'vaultSite',
  username: 'vaultUsername',
  totp: 'vaultTotp',
  label: 'vaultLabel',
  notes: 'vaultNotes',
};

function validationText(details: unknown, t: Messages): string {
  const fields = invalidFields(details);
  // A problem with the body as a whole has no path: there is no field to name.
  if (fields.length === 0) return t.errorValidation;
  const named = fields.map((field) => (Object.hasOwn(FIELD_LABEL, field) ? t[FIELD_LABEL[field]!] : field));
  return fill(t.errorValidationFields, { fields: named.join(t.errorFieldSeparator) });
}
