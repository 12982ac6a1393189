import type { ModelFailureCode } from '@lazyboy/contracts';
import {
  LocalRuntimeError,
  MissingApiKeyError,
  ModelAuthError,
  ModelConnectionError,
  ModelEndpointRefusedError,
  ModelError,
  ModelFileError,
  ModelNotConfiguredError,
  ModelNotFoundError,
  ModelProtocolError,
  ModelRateLimitError,
  ModelRedirectError,
  ModelRequestError,
  ModelServerError,
  ModelTimeoutError,
} from './errors.js';

/**
 * The stable code (libs/contracts run-error-codes.ts) of a model failure: what a run ends with and what a
 * model check answers, so that clients word it in their person's language. Undefined for what is no
 * ModelError. Subclasses first: MissingApiKeyError is a ModelAuthError, ModelFileError a ModelNotConfiguredError.
 */
export function modelErrorCode(error: unknown): ModelFailureCode | undefined {
  if (!(error instanceof ModelError)) return undefined;
  if (error instanceof MissingApiKeyError) return 'model_key_missing';
  if (error instanceof ModelAuthError) return 'model_key_refused';
  if (error instanceof ModelFileError) return 'model_file_error';
  if (error instanceof ModelNotConfiguredError) {
    switch (error.reason) {
      case 'no_model':
        return 'model_name_missing';
      case 'no_model_file':
        return 'model_file_missing';
      case 'no_provider':
        return 'model_not_configured';
    }
  }
  if (error instanceof ModelNotFoundError) return 'model_not_found';
  if (error instanceof ModelRateLimitError) return 'model_rate_limited';
  if (error instanceof ModelServerError) return 'model_server_error';
  if (error instanceof ModelTimeoutError) return 'model_timeout';
  if (error instanceof ModelConnectionError) return 'model_unreachable';
  if (error instanceof ModelEndpointRefusedError) return 'model_endpoint_refused';
  if (error instanceof ModelRedirectError) return 'model_redirect';
  if (error instanceof ModelProtocolError) return 'model_bad_answer';
  if (error instanceof ModelRequestError) return 'model_request_rejected';
  if (error instanceof LocalRuntimeError) return 'model_runtime_error';
  return 'model_error';
}
