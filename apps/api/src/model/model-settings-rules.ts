import type { MembershipRole, ModelSettings } from '@lazyboy/contracts';
import { sameEndpointSettings, type ModelEndpointPolicy } from '@lazyboy/model';
import { ApiError, forbidden } from '../common/api-error.js';
import { hasRole } from '../tenancy/workspace-access.js';

// Who may change model settings, which base URLs and model files they may name, and what happens to a
// stored key when its endpoint changes. The same rules for an agent's settings and a workspace's.

/** Model settings decide where a key goes and which server the API posts to: owners and admins only. */
export function assertMayChangeModelSettings(role: MembershipRole): void {
  if (!hasRole(role, 'admin')) {
    throw forbidden('changing model settings or a model key needs the admin or owner role in the workspace');
  }
}

/** A 400 VALIDATION_FAILED naming one field, as the body pipes answer. */
export function invalidField(field: string, message: string, where = 'body'): ApiError {
  return new ApiError('VALIDATION_FAILED', `invalid ${where}: ${field}: ${message}`, { issues: [{ path: field, message }] });
}

/** 400 naming the field when the policy refuses the base URL; nothing when there is none. */
export function assertAllowedBaseUrl(
  settings: Pick<ModelSettings, 'baseUrl'>,
  policy: ModelEndpointPolicy,
  field: string,
  where = 'body',
): void {
  if (settings.baseUrl === undefined) return;
  const refusal = policy.refusalOf(settings.baseUrl);
  if (refusal === undefined) return;
  throw invalidField(field, `the base URL ${refusal}`, where);
}

export const LOCAL_FILES_OFF =
  'local model files are not allowed on this instance (an instance admin can allow local model servers)';

/**
 * A model file on the server is loaded by the API itself: like a loopback server, only where the instance
 * admin allows local model servers (400 naming the field otherwise).
 */
export function assertAllowedModelPath(
  settings: Pick<ModelSettings, 'modelPath'>,
  policy: ModelEndpointPolicy,
  field: string,
): void {
  if (settings.modelPath === undefined || policy.allowLoopback) return;
  throw invalidField(field, LOCAL_FILES_OFF);
}

/** Whether settings name an endpoint of their own (a provider or a base URL) a key can be meant for. */
export function namesEndpoint(settings: ModelSettings): boolean {
  return settings.provider !== undefined || settings.baseUrl !== undefined;
}

/**
 * A key (an agent's or a workspace's) is meant for the endpoint its own settings name: settings naming none
 * would send it to whatever endpoint a later link names, one someone else may change (400 naming the field).
 */
export function assertKeyHasEndpoint(settings: ModelSettings, field: string): void {
  if (namesEndpoint(settings)) return;
  throw invalidField(field, 'a model key needs a provider or a base URL in the model settings it goes with');
}

/**
 * Whether the stored key must go: it was meant for the endpoint (provider and base URL) the settings had,
 * so new settings naming another endpoint drop it unless the same request brings a key (or removes it).
 */
export function dropsStoredKey(stored: ModelSettings, next: ModelSettings, keyInRequest: boolean): boolean {
  return !keyInRequest && !sameEndpointSettings(stored, next);
}
