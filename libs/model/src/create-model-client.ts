import type { ModelClient } from '@lazyboy/contracts';
import type { ModelBackend } from './credentials.js';
import { ModelNotConfiguredError } from './errors.js';
import type { ModelHttpOptions } from './http/model-http.js';
import { ChatCompletionsClient } from './providers/chat-completions.js';
import { LocalGgufClient, type LocalGgufClientOptions } from './providers/local-gguf.js';
import { ResponsesClient } from './providers/responses.js';

export interface CreateModelClientOptions extends ModelHttpOptions {
  /** Tuning of the local-gguf provider; the HTTP options above do not apply to it. */
  localGguf?: Pick<LocalGgufClientOptions, 'contextSize' | 'maxOutputTokens' | 'threads' | 'seed'>;
}

/**
 * The ModelClient for a resolved backend. Throws MissingApiKeyError before any request when a hosted provider
 * has no key. A local-gguf client holds native memory until closed: end with closeModelClient.
 */
export function createModelClient(backend: ModelBackend, options: CreateModelClientOptions = {}): ModelClient {
  const { localGguf, ...httpOptions } = options;
  const common = {
    ...httpOptions,
    baseUrl: backend.baseUrl,
    model: backend.model,
    ...(backend.apiKey ? { apiKey: backend.apiKey } : {}),
    ...(backend.temperature !== undefined ? { temperature: backend.temperature } : {}),
    ...(backend.label !== undefined ? { label: backend.label } : {}),
  };
  switch (backend.provider) {
    case 'xai':
    case 'openai-chat':
      return new ChatCompletionsClient({ ...common, provider: backend.provider });
    case 'openai-responses':
      return new ResponsesClient(common);
    case 'local-gguf':
      if (!backend.modelPath) {
        throw new ModelNotConfiguredError('the local-gguf provider needs the path of a GGUF file (modelPath)', {
          provider: 'local-gguf',
        });
      }
      return new LocalGgufClient({
        ...localGguf,
        modelPath: backend.modelPath,
        model: backend.model,
        ...(backend.temperature !== undefined ? { temperature: backend.temperature } : {}),
      });
  }
}

/** Frees what a client holds: a local-gguf client's model and context. Harmless for the HTTP clients. */
export async function closeModelClient(client: ModelClient): Promise<void> {
  if (client instanceof LocalGgufClient) await client.close();
}
