import { runErrorCodeSchema, type RunErrorCode } from '@lazyboy/contracts';
import type { Messages } from '../locales';

/**
 * A text for every code a run can end with and every reason an agent has no usable model
 * (libs/contracts run-error-codes.ts): a code added there without one here fails the type check.
 */
export const RUN_ERROR_TEXT: Record<RunErrorCode, keyof Messages> = {
  model_not_configured: 'runError_model_not_configured',
  model_name_missing: 'runError_model_name_missing',
  model_file_missing: 'runError_model_file_missing',
  model_key_missing: 'runError_model_key_missing',
  model_endpoint_refused: 'runError_model_endpoint_refused',
  model_key_refused: 'runError_model_key_refused',
  model_not_found: 'runError_model_not_found',
  model_rate_limited: 'runError_model_rate_limited',
  model_server_error: 'runError_model_server_error',
  model_timeout: 'runError_model_timeout',
  model_unreachable: 'runError_model_unreachable',
  model_redirect: 'runError_model_redirect',
  model_bad_answer: 'runError_model_bad_answer',
  model_request_rejected: 'runError_model_request_rejected',
  model_file_error: 'runError_model_file_error',
  model_runtime_error: 'runError_model_runtime_error',
  model_error: 'runError_model_error',
  reported: 'runError_reported',
  identical_rounds: 'runError_identical_rounds',
  no_progress: 'runError_no_progress',
  empty_responses: 'runError_empty_responses',
  total_budget: 'runError_total_budget',
  human_declined: 'runError_human_declined',
  execution_failed: 'runError_execution_failed',
  waited_too_long: 'runError_waited_too_long',
};

/** A code in the person's language; a code newer than this build reads as the generic failure. */
export function runErrorText(code: string, t: Messages): string {
  const known = runErrorCodeSchema.safeParse(code);
  return t[known.success ? RUN_ERROR_TEXT[known.data] : 'runError_execution_failed'];
}

/** Codes a workspace's owners fix in the model settings (a link there helps); the others are the agent's or ours. */
export function isModelSettingsProblem(code: string): boolean {
  return code.startsWith('model_') && code !== 'model_runtime_error';
}
