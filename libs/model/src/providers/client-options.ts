import type { ModelProvider } from '@lazyboy/contracts';
import { MissingApiKeyError } from '../errors.js';
import { displayUrl } from '../http/endpoint.js';
import type { ModelHttpOptions } from '../http/model-http.js';
import { requiresApiKey } from '../provider-defaults.js';

export interface ModelClientOptions extends ModelHttpOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Used when a request sets no temperature (the bot's or workspace's setting). */
  temperature?: number;
}

/** Refuses, before any request, to talk to a hosted provider without a key. */
export function assertApiKey(provider: ModelProvider, baseUrl: string, apiKey: string | undefined): void {
  if (apiKey || !requiresApiKey(provider, baseUrl)) return;
  const variable = provider === 'xai' ? 'XAI_API_KEY' : 'OPENAI_API_KEY';
  throw new MissingApiKeyError(
    `no API key for ${provider} at ${displayUrl(baseUrl)}: set the key in the bot's or workspace's model settings, or ${variable}`,
    { provider },
  );
}
