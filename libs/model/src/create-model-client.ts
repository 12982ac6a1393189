import type { ModelClient } from '@lazyboy/contracts';
import type { ModelBackend } from './credentials.js';
import { UnsupportedProviderError } from './errors.js';
import type { ModelHttpOptions } from './http/model-http.js';
import { ChatCompletionsClient } from './providers/chat-completions.js';
import { ResponsesClient } from './providers/responses.js';

/** The ModelClient for a resolved backend. Throws MissingApiKeyError before any request when a hosted provider has no key. */
export function createModelClient(backend: ModelBackend, options: ModelHttpOptions = {}): ModelClient {
  const common = {
    ...options,
    baseUrl: backend.baseUrl,
    model: backend.model,
    ...(backend.apiKey ? { apiKey: backend.apiKey } : {}),
    ...(backend.temperature !== undefined ? { temperature: backend.temperature } : {}),
  };
  switch (backend.provider) {
    case 'xai':
    case 'openai-chat':
      return new ChatCompletionsClient({ ...common, provider: backend.provider });
    case 'openai-responses':
      return new ResponsesClient(common);
    case 'local-gguf':
      throw new UnsupportedProviderError(
        "the local-gguf provider is not available in this build yet: choose xai, openai-chat or openai-responses, or point openai-chat at a local llama.cpp server's /v1",
        { provider: 'local-gguf' },
      );
  }
}
