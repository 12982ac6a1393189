import type { MembershipRole, ModelSettings } from '@lazyboy/contracts';
import { sameEndpointSettings, type ModelEndpointPolicy } from '@lazyboy/model';
import { ApiError, forbidden } from '../common/api-error.js';
import { hasRole } from '../tenancy/workspace-access.js';

// Who may change model settings, which base URLs they may name, and what happens to a stored key when its
// endpoint changes. Written for an agent's settings; a workspace's follow the same rules.

/** Model settings decide where a key goes and which server the API posts to: owners and admins only. */
export function assertMayChangeModelSettings(role: MembershipRole): void {
  if (!hasRole(role, 'admin')) {
    throw forbidden('changing model settings or a model key needs the admin or owner role in the workspace');
  }
}

/** 400 naming the field when the policy refuses the base URL; nothing when there is none. */
export function assertAllowedBaseUrl(settings: Pick<ModelSettings, 'baseUrl'>, policy: ModelEndpointPolicy, field: string): void {
  if (settings.baseUrl === undefined) return;
  const refusal = policy.refusalOf(settings.baseUrl);
  if (refusal === undefined) return;
  const message = `the base URL ${refusal}`;
  throw new ApiError('VALIDATION_FAILED', `invalid body: ${field}: ${message}`, { issues: [{ path: field, message }] });
}

/**
 * Whether the stored key must go: it was meant for the endpoint (provider and base URL) the settings had,
 * so new settings naming another endpoint drop it unless the same request brings a key (or removes it).
 */
export function dropsStoredKey(stored: ModelSettings, next: ModelSettings, keyInRequest: boolean): boolean {
  return !keyInRequest && !sameEndpointSettings(stored, next);
}
