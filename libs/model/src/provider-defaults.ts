import type { ModelProvider } from '@lazyboy/contracts';

// The only place that names real provider hosts: everything else (code and tests) refers to these.

export const XAI_DEFAULT_BASE_URL = 'https://api.x.ai/v1';
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

const HOSTED_HOSTS = new Set([new URL(XAI_DEFAULT_BASE_URL).hostname, new URL(OPENAI_DEFAULT_BASE_URL).hostname]);

/** The base URL a provider uses when nothing names one; undefined for providers without an HTTP endpoint. */
export function defaultBaseUrl(provider: ModelProvider): string | undefined {
  switch (provider) {
    case 'xai':
      return XAI_DEFAULT_BASE_URL;
    case 'openai-chat':
    case 'openai-responses':
      return OPENAI_DEFAULT_BASE_URL;
    case 'local-gguf':
      return undefined;
  }
}

/**
 * Whether requests to this endpoint are pointless without a key. Local OpenAI-compatible servers
 * (Ollama, llama.cpp, vLLM) usually take none, so only xAI and the known hosted hosts insist.
 */
export function requiresApiKey(provider: ModelProvider, baseUrl: string): boolean {
  if (provider === 'xai') return true;
  try {
    return HOSTED_HOSTS.has(new URL(baseUrl).hostname.toLowerCase());
  } catch {
    return false;
  }
}
