import type { ModelProvider } from '@lazyboy/contracts';
import type { Messages } from '../locales';

/** The providers people pick from, in the order offered, with their catalog labels. */
export const PROVIDER_LABEL: Record<ModelProvider, keyof Messages> = {
  'openai-chat': 'modelProviderOpenAiChat',
  xai: 'modelProviderXai',
  'openai-responses': 'modelProviderOpenAiResponses',
  'local-gguf': 'modelProviderLocalGguf',
};

/** Short names, where a provider is mentioned in a sentence. */
export const PROVIDER_SHORT: Record<ModelProvider, keyof Messages> = {
  'openai-chat': 'modelProviderShortOpenAiChat',
  xai: 'modelProviderXai',
  'openai-responses': 'modelProviderOpenAiResponses',
  'local-gguf': 'modelProviderShortLocalGguf',
};

/** Providers reached over HTTP: they have a base URL and may take a key. */
export function isHttpProvider(provider: ModelProvider): boolean {
  return provider !== 'local-gguf';
}

/**
 * Whether an empty base URL is fine: hosted providers default to their own service. An OpenAI-compatible
 * endpoint (Ollama, llama.cpp, vLLM, LM Studio) is usually somewhere else, so the page asks for it.
 */
export function baseUrlOptional(provider: ModelProvider): boolean {
  return provider === 'xai' || provider === 'openai-responses';
}
