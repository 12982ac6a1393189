import type { ModelFailureCode, ModelProvider } from '@lazyboy/contracts';
import { createModelClient, closeModelClient } from './create-model-client.js';
import type { ModelBackend } from './credentials.js';
import { modelErrorCode } from './error-codes.js';
import { ModelError, ModelNotFoundError, ModelProtocolError, ModelRequestError } from './errors.js';
import { endpointLabel } from './http/endpoint.js';
import type { ModelEndpointPolicy } from './http/endpoint-policy.js';
import { ModelHttp } from './http/model-http.js';
import { oneLine } from './http/message-text.js';
import { isRecord } from './json-values.js';

// What a settings page asks of a model endpoint before anything is saved or run: which models it lists,
// whether one small request goes through, which local servers answer. Each makes a single attempt with a
// short timeout, through the same endpoint policy and redirect refusal as a run's requests.

/** Long enough for a model server on a LAN; short enough for a settings page waiting on it. */
export const CHECK_TIMEOUT_MS = 8_000;
/** A loopback port either answers at once or not at all. */
export const LOCAL_PROBE_TIMEOUT_MS = 1_500;
/** More than any server lists; the rest is dropped rather than shipped to a page. */
const MAX_MODELS = 500;

export interface EndpointCheckOptions {
  /** Default CHECK_TIMEOUT_MS. */
  timeoutMs?: number;
  /** For endpoints people configured; none for the operator's own. */
  endpointPolicy?: ModelEndpointPolicy;
  signal?: AbortSignal;
}

/** Why a check failed, as the API shows it: a stable code, the status the server answered with, its words. */
export interface CheckFailure {
  code: ModelFailureCode;
  status: number | null;
  message: string;
  providerMessage: string | null;
}

export function checkFailureOf(error: unknown): CheckFailure {
  const code = modelErrorCode(error) ?? 'model_error';
  const modelError = error instanceof ModelError ? error : undefined;
  return {
    code,
    status: modelError?.status ?? null,
    message: oneLine(error instanceof Error ? error.message : String(error)),
    providerMessage: modelError?.providerMessage ?? null,
  };
}

export interface ModelListEndpoint {
  provider: ModelProvider;
  baseUrl: string;
  apiKey?: string;
  /** How messages name the endpoint (ModelEndpoint.label); default its URL. */
  label?: string;
}

/**
 * The model ids an OpenAI-compatible endpoint lists at `<baseUrl>/models` (`/v1/models` for a base URL
 * ending in /v1), in its order. Throws the ModelError of the failure, with the provider's own text.
 */
export async function listModels(endpoint: ModelListEndpoint, options: EndpointCheckOptions = {}): Promise<string[]> {
  const http = new ModelHttp(
    {
      provider: endpoint.provider,
      baseUrl: endpoint.baseUrl,
      model: '',
      ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
      ...(endpoint.label !== undefined ? { label: endpoint.label } : {}),
    },
    {
      timeoutMs: options.timeoutMs ?? CHECK_TIMEOUT_MS,
      retry: { maxRetries: 0 },
      ...(options.endpointPolicy ? { endpointPolicy: options.endpointPolicy } : {}),
    },
  );
  let body: unknown;
  try {
    body = await http.getJson('/models', options.signal);
  } catch (error) {
    // A 404 here means the server has no model list, not that a model is unknown.
    if (error instanceof ModelNotFoundError) {
      throw new ModelRequestError(
        `the model server at ${endpointLabel(endpoint)} lists no models (HTTP ${error.status ?? 404} for /models)`,
        {
          provider: endpoint.provider,
          ...(error.status !== undefined ? { status: error.status } : {}),
          ...(error.providerMessage ? { providerMessage: error.providerMessage } : {}),
        },
      );
    }
    throw error;
  }
  const data = isRecord(body) ? body['data'] : undefined;
  // Ollama's own /api/tags says `models`; its /v1/models, like every compatible server, says `data`.
  const entries = Array.isArray(data) ? data : isRecord(body) && Array.isArray(body['models']) ? body['models'] : undefined;
  if (!entries) {
    throw new ModelProtocolError(`the model server at ${endpointLabel(endpoint)} answered /models without a list of models`, {
      provider: endpoint.provider,
    });
  }
  const ids: string[] = [];
  for (const entry of entries) {
    const id = isRecord(entry) ? (entry['id'] ?? entry['name'] ?? entry['model']) : entry;
    if (typeof id === 'string' && id.trim() !== '' && id.length <= 200 && !ids.includes(id)) ids.push(id);
    if (ids.length >= MAX_MODELS) break;
  }
  return ids;
}

/** What one small real request answered. */
export interface ModelTestResult {
  /** The model's text, shortened. */
  reply: string;
}

const TEST_PROMPT = 'Reply with the single word OK.';

/**
 * One small real request to the backend, streamed off and not retried. Throws the ModelError of the failure
 * (a missing key before any request, a refused one with the provider's 401 text).
 */
export async function testModel(backend: ModelBackend, options: EndpointCheckOptions = {}): Promise<ModelTestResult> {
  const client = createModelClient(backend, {
    timeoutMs: options.timeoutMs ?? CHECK_TIMEOUT_MS,
    retry: { maxRetries: 0 },
    ...(options.endpointPolicy ? { endpointPolicy: options.endpointPolicy } : {}),
  });
  try {
    const response = await client.complete({
      messages: [{ role: 'user', content: TEST_PROMPT }],
      // Enough for "OK" from any model; the Responses API refuses fewer than 16.
      maxOutputTokens: 16,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { reply: oneLine(response.text, 200) };
  } finally {
    await closeModelClient(client).catch(() => undefined);
  }
}

/** A model server that usually listens on a loopback port of its own. */
export interface LocalModelServerCandidate {
  kind: 'ollama' | 'llama.cpp' | 'lm-studio' | 'vllm';
  /** The OpenAI-compatible base URL people save (ending in /v1). */
  baseUrl: string;
}

/** The usual ports: Ollama 11434, llama.cpp's server 8080, LM Studio 1234, vLLM 8000. */
export const LOCAL_MODEL_SERVERS: readonly LocalModelServerCandidate[] = [
  { kind: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
  { kind: 'llama.cpp', baseUrl: 'http://127.0.0.1:8080/v1' },
  { kind: 'lm-studio', baseUrl: 'http://127.0.0.1:1234/v1' },
  { kind: 'vllm', baseUrl: 'http://127.0.0.1:8000/v1' },
];

export interface FoundLocalModelServer extends LocalModelServerCandidate {
  provider: 'openai-chat';
  models: string[];
}

export interface LocalProbeOptions {
  /** Default LOCAL_PROBE_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Where each candidate is asked; default its own base URL (a container rewrites loopback). */
  probeUrl?: (baseUrl: string) => string;
}

/**
 * The candidates whose `/v1/models` answers with a model list, all asked at once, in the candidates' order.
 * Something else on one of these ports (a web app on 8080) answers no list and is left out.
 */
export async function findLocalModelServers(
  candidates: readonly LocalModelServerCandidate[] = LOCAL_MODEL_SERVERS,
  options: LocalProbeOptions = {},
): Promise<FoundLocalModelServer[]> {
  const found = await Promise.all(
    candidates.map(async (candidate): Promise<FoundLocalModelServer | undefined> => {
      try {
        const baseUrl = options.probeUrl ? options.probeUrl(candidate.baseUrl) : candidate.baseUrl;
        const models = await listModels(
          { provider: 'openai-chat', baseUrl },
          { timeoutMs: options.timeoutMs ?? LOCAL_PROBE_TIMEOUT_MS },
        );
        return { ...candidate, provider: 'openai-chat', models };
      } catch {
        return undefined;
      }
    }),
  );
  return found.filter((server): server is FoundLocalModelServer => server !== undefined);
}
