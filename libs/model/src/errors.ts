// Every failure of the model harness is a ModelError subclass with a one-line message a person can act
// on. Messages never carry a stack trace or an API key: they end up in run events and in the UI.

export interface ModelErrorDetails {
  /** Provider label, e.g. "xai" or "openai-chat". */
  provider?: string;
  /** HTTP status of the provider's answer, when there was one. */
  status?: number;
  /** The provider's own error text, one line, the key redacted, when it sent one. */
  providerMessage?: string;
  cause?: unknown;
}

export class ModelError extends Error {
  // Typed `string` so that subclasses can name themselves.
  override readonly name: string = 'ModelError';
  readonly provider: string | undefined;
  readonly status: number | undefined;
  readonly providerMessage: string | undefined;

  constructor(message: string, details: ModelErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.provider = details.provider;
    this.status = details.status;
    this.providerMessage = details.providerMessage;
  }
}

/** 401/403: the provider refused the key. */
export class ModelAuthError extends ModelError {
  override readonly name: string = 'ModelAuthError';
}

/** A hosted provider was chosen but no key was configured; raised before any request is sent. */
export class MissingApiKeyError extends ModelAuthError {
  override readonly name: string = 'MissingApiKeyError';
}

export class ModelNotFoundError extends ModelError {
  override readonly name = 'ModelNotFoundError';
  readonly model: string;

  constructor(message: string, model: string, details: ModelErrorDetails = {}) {
    super(message, details);
    this.model = model;
  }
}

export class ModelRateLimitError extends ModelError {
  override readonly name = 'ModelRateLimitError';
  /** What the provider's last Retry-After asked for, if anything. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, retryAfterMs: number | undefined, details: ModelErrorDetails = {}) {
    super(message, details);
    this.retryAfterMs = retryAfterMs;
  }
}

/** 5xx after the retry budget, or an error the provider reported inside a stream. */
export class ModelServerError extends ModelError {
  override readonly name = 'ModelServerError';
}

export class ModelTimeoutError extends ModelError {
  override readonly name = 'ModelTimeoutError';
  readonly timeoutMs: number;

  constructor(message: string, timeoutMs: number, details: ModelErrorDetails = {}) {
    super(message, details);
    this.timeoutMs = timeoutMs;
  }
}

/** Any other 4xx: the request itself is wrong; repeating it cannot help. */
export class ModelRequestError extends ModelError {
  override readonly name = 'ModelRequestError';
}

/** The caller's AbortSignal fired. */
export class ModelAbortedError extends ModelError {
  override readonly name = 'ModelAbortedError';
}

/** The provider could not be reached (refused, reset, DNS) even after the retries. */
export class ModelConnectionError extends ModelError {
  override readonly name = 'ModelConnectionError';
}

/**
 * The endpoint policy refused the model server's address (loopback, link-local, a cluster service…), before
 * any byte was sent. Not retried: the same address is refused again.
 */
export class ModelEndpointRefusedError extends ModelError {
  override readonly name = 'ModelEndpointRefusedError';
}

/**
 * The model server answered with a redirect. Never followed (the key would go wherever it points) and not
 * retried: the base URL has to name the final address.
 */
export class ModelRedirectError extends ModelError {
  override readonly name = 'ModelRedirectError';
}

/** The provider answered with something that is not the protocol it claims to speak. */
export class ModelProtocolError extends ModelError {
  override readonly name = 'ModelProtocolError';
}

/** What a ModelNotConfiguredError lacks: a provider at all, a model name, or the local provider's file. */
export type NotConfiguredReason = 'no_provider' | 'no_model' | 'no_model_file';

/** The settings and environment do not say which model to use, or say it wrongly. */
export class ModelNotConfiguredError extends ModelError {
  override readonly name: string = 'ModelNotConfiguredError';
  readonly reason: NotConfiguredReason;

  constructor(message: string, details: ModelErrorDetails & { reason?: NotConfiguredReason } = {}) {
    super(message, details);
    this.reason = details.reason ?? 'no_provider';
  }
}

/** The local-gguf provider's model file is missing, unreadable, not a GGUF file, or one llama.cpp cannot load. */
export class ModelFileError extends ModelNotConfiguredError {
  override readonly name = 'ModelFileError';
  /** The path as the settings gave it. */
  readonly modelPath: string;

  constructor(message: string, modelPath: string, details: ModelErrorDetails = {}) {
    super(message, details);
    this.modelPath = modelPath;
  }
}

/** The in-process llama.cpp runtime of the local-gguf provider failed (no binary for this platform, out of memory…). */
export class LocalRuntimeError extends ModelError {
  override readonly name = 'LocalRuntimeError';
}
