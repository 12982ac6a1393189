import { z } from 'zod';

// Every code a run can end with (RunView.errorCode) and every reason an agent has no usable model
// (AgentView.modelReadiness.code, a workspace's model check): one list, so that each client words every one
// of them in its person's language. Stable: clients match on them; add codes, never rename one. The English
// errorMessage beside a code is for logs and API clients; it carries the provider's own text.

/** No usable model, known before any request (also what AgentView.modelReadiness says). */
const MODEL_UNAVAILABLE_CODES = [
  /** Neither the agent, nor its workspace, nor (for this workspace) the host's environment names a model. */
  'model_not_configured',
  /** A provider is chosen but no model name. */
  'model_name_missing',
  /** The local GGUF provider without the path of a model file. */
  'model_file_missing',
  /** The provider needs an API key (xAI, OpenAI's own service) and none is stored for its endpoint. */
  'model_key_missing',
  /** This instance refuses the base URL (loopback, link-local, a refused network) or local model files. */
  'model_endpoint_refused',
] as const;

/** A model request failed (errorMessage has the provider's own text). */
const MODEL_REQUEST_CODES = [
  /** HTTP 401 or 403: the provider refused the key. */
  'model_key_refused',
  /** The provider does not know the model name. */
  'model_not_found',
  /** HTTP 429: rate limited, or the account's quota is used up. */
  'model_rate_limited',
  /** HTTP 5xx (after the retries), or an error the provider reported inside its answer. */
  'model_server_error',
  /** The model server stayed silent for the whole timeout. */
  'model_timeout',
  /** The model server could not be reached (refused, reset, unknown name). */
  'model_unreachable',
  /** The model server answered with a redirect, which is never followed (the key would go along). */
  'model_redirect',
  /** The answer was not the protocol the provider speaks (a web page, not JSON). */
  'model_bad_answer',
  /** Any other HTTP 4xx: the provider rejected the request. */
  'model_request_rejected',
  /** The local GGUF file is missing, unreadable or not a model llama.cpp can load. */
  'model_file_error',
  /** The in-process runtime of the local GGUF provider failed. */
  'model_runtime_error',
  /** Any other failure of the model. */
  'model_error',
] as const;

/** The agent's own guards (libs/agent's BlockedCode): the run is blocked. */
const BLOCKED_CODES = [
  /** The agent reported that it is blocked (report_blocked); its reason is the result text. */
  'reported',
  /** The same action gave the same result several times in a row. */
  'identical_rounds',
  /** Several rounds without progress. */
  'no_progress',
  /** The model kept answering with nothing. */
  'empty_responses',
  /** The run used up its total round budget. */
  'total_budget',
  /** The person declined a confirmation or a handoff. */
  'human_declined',
] as const;

/** Anything else. */
const OTHER_CODES = [
  /** The service failed while running the agent (not the model's fault). */
  'execution_failed',
  /** The run waited for an answer or a hand-back longer than LAZYBOY_PARKED_RUN_HOURS (it ends as blocked). */
  'waited_too_long',
] as const;

export const runErrorCodeSchema = z.enum([...MODEL_UNAVAILABLE_CODES, ...MODEL_REQUEST_CODES, ...BLOCKED_CODES, ...OTHER_CODES]);
export type RunErrorCode = z.infer<typeof runErrorCodeSchema>;

/** Why an agent has no model it can use, known without asking the model anything. */
export const modelUnavailableCodeSchema = runErrorCodeSchema.extract(MODEL_UNAVAILABLE_CODES);
export type ModelUnavailableCode = z.infer<typeof modelUnavailableCodeSchema>;

/** The codes of a model that cannot be used or failed: what a model check (list, test) answers. */
export const modelFailureCodeSchema = runErrorCodeSchema.extract([...MODEL_UNAVAILABLE_CODES, ...MODEL_REQUEST_CODES]);
export type ModelFailureCode = z.infer<typeof modelFailureCodeSchema>;

/** A stored code as the API shows it: codes older versions wrote (or none of this list) read as execution_failed. */
export function runErrorCodeOf(stored: string | null): RunErrorCode | null {
  if (stored === null) return null;
  const parsed = runErrorCodeSchema.safeParse(stored);
  return parsed.success ? parsed.data : 'execution_failed';
}
