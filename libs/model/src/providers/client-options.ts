import type { ModelProvider } from '@lazyboy/contracts';
import { MissingApiKeyError } from '../errors.js';
import { endpointLabel } from '../http/endpoint.js';
import type { ModelHttpOptions } from '../http/model-http.js';
import { requiresApiKey } from '../provider-defaults.js';

export interface ModelClientOptions extends ModelHttpOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Used when a request sets no temperature (the agent's or workspace's setting). */
  temperature?: number;
  /** How messages name the endpoint (ModelEndpoint.label); default its URL. */
  label?: string;
}

/** Refuses, before any request, to talk to a hosted provider without a key. */
export function assertApiKey(provider: ModelProvider, baseUrl: string, apiKey: string | undefined, label?: string): void {
  if (apiKey || !requiresApiKey(provider, baseUrl)) return;
  const variable = provider === 'xai' ? 'XAI_API_KEY' : 'OPENAI_API_KEY';
  throw new MissingApiKeyError(
    `no API key for ${provider} at ${endpointLabel({ baseUrl, ...(label !== undefined ? { label } : {}) })}: set the key in the agent's or workspace's model settings, or ${variable}`,
    { provider },
  );
}
