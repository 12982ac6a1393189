import path from 'node:path';
import { isLoopbackHost, type ModelProvider, modelProviderSchema, type ModelSettings } from '@lazyboy/contracts';
import { ModelNotConfiguredError } from './errors.js';
import { defaultBaseUrl, OPENAI_DEFAULT_BASE_URL, XAI_DEFAULT_BASE_URL } from './provider-defaults.js';

// Which model a run talks to: the agent's settings, then the workspace's, then the environment.
//
// Environment variables (the last link of the chain; empty values count as unset):
//
// | variable               | meaning                                                                                   |
// | ---------------------- | ----------------------------------------------------------------------------------------- |
// | LAZYBOY_MODEL_PROVIDER | xai, openai-chat, openai-responses or local-gguf; overrides the guesses below             |
// | LAZYBOY_MODEL_PATH     | GGUF file for local-gguf; selects local-gguf when nothing else selects a provider         |
// | LAZYBOY_MODEL          | model name, for any provider                                                              |
// | GROKBOY_MODEL          | the seeds' older name of LAZYBOY_MODEL                                                    |
// | XAI_MODEL              | model name when the provider is xai and neither of the above is set (seeds' alias)        |
// | OPENAI_MODEL           | model name when the provider is openai-* and neither LAZYBOY_MODEL nor GROKBOY_MODEL is  |
// | LAZYBOY_MODEL_BASE_URL | base URL of the environment's provider                                                    |
// | OPENAI_BASE_URL        | an OpenAI-compatible endpoint (Ollama, vLLM…); without a provider, selects openai-chat    |
// | XAI_API_KEY            | key for xAI; without a provider (and no OPENAI_BASE_URL), selects xai at xAI's base URL   |
// | OPENAI_API_KEY         | key for OpenAI or for OPENAI_BASE_URL; without anything else, selects openai-chat         |
// | LAZYBOY_IN_CONTAINER   | 1: this process runs in one of LazyBoy's containers (loopback → host.docker.internal)   |
//
// How the links combine:
// - The endpoint (provider and base URL) comes as one piece from the first link that names either.
//   A provider without a base URL means that provider's own service; a base URL without a provider
//   keeps the provider of a later link (default openai-chat). Mixing an agent's provider with a base URL
//   from the environment would send requests somewhere neither was configured for.
// - Model, temperature and GGUF path: each from the first link that sets it.
// - The API key: from the first link that has one *for the chosen endpoint*. A link's key is meant for
//   the endpoint that link's own settings name (a link naming neither provider nor base URL has no key
//   to give); a key meant for another base URL is never used, so an agent pointed at some other host cannot
//   receive the workspace's or the operator's key, nor a workspace pointed elsewhere an agent's.

export type CredentialSource = 'agent' | 'workspace' | 'env';

export interface CredentialLink {
  settings: ModelSettings;
  apiKey?: string;
}

export interface ResolveModelBackendInput {
  agent?: CredentialLink;
  workspace?: CredentialLink;
  env: Record<string, string | undefined>;
  /** Default: detected with isInContainer(env). */
  inContainer?: boolean;
}

/** What createModelClient needs. */
export interface ModelBackend {
  provider: ModelProvider;
  /** Empty for local-gguf, which has no HTTP endpoint. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  temperature?: number;
  modelPath?: string;
  /** How messages name the endpoint (ModelEndpoint.label); default its URL. */
  label?: string;
}

export interface ResolvedModelBackend extends ModelBackend {
  /** The link that chose the endpoint (provider and base URL). */
  source: CredentialSource;
  /** The link whose key is used, when one is. */
  keySource?: CredentialSource;
}

interface KeyCandidate {
  apiKey: string;
  /** The base URL the key is meant for; undefined: whatever endpoint its link resolves to. */
  target?: string;
}

interface Link {
  source: CredentialSource;
  provider?: ModelProvider;
  baseUrl?: string;
  model: (provider: ModelProvider) => string | undefined;
  temperature?: number;
  modelPath?: string;
  keys: KeyCandidate[];
}

interface Endpoint {
  provider: ModelProvider;
  baseUrl: string;
  source: CredentialSource;
}

/**
 * Opt-in, set by LazyBoy's own images: a /.dockerenv file alone is no proof that the host's loopback is
 * unreachable (sandboxes and dev containers running the whole stack inside have one too, and there the
 * rewrite would break a model server on 127.0.0.1).
 */
export function isInContainer(env: Record<string, string | undefined>): boolean {
  return env['LAZYBOY_IN_CONTAINER'] === '1';
}

/** Inside a container, 127.0.0.1 is the container itself; a model server on the host is host.docker.internal. */
export function rewriteLoopbackForContainer(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (!isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ''))) return baseUrl;
  url.hostname = 'host.docker.internal';
  return url.href.replace(/\/+$/, '');
}

function envValue(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function checkedUrl(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    // Reported below, with the variable's name.
  }
  // Without the value: a run's failure shows this to the workspace, and the host's address is not its business.
  throw new ModelNotConfiguredError(`${name} is not an http(s) URL`);
}

const isOpenAi = (provider: ModelProvider | undefined): boolean => provider === 'openai-chat' || provider === 'openai-responses';

function envLink(env: Record<string, string | undefined>): Link {
  const named = envValue(env, 'LAZYBOY_MODEL_PROVIDER');
  let explicit: ModelProvider | undefined;
  if (named !== undefined) {
    const parsed = modelProviderSchema.safeParse(named);
    if (!parsed.success) {
      throw new ModelNotConfiguredError(
        `LAZYBOY_MODEL_PROVIDER='${named}' is not a provider; use one of ${modelProviderSchema.options.join(', ')}`,
      );
    }
    explicit = parsed.data;
  }
  const lazyboyBaseUrl = checkedUrl(envValue(env, 'LAZYBOY_MODEL_BASE_URL'), 'LAZYBOY_MODEL_BASE_URL');
  const openAiBaseUrl = checkedUrl(envValue(env, 'OPENAI_BASE_URL'), 'OPENAI_BASE_URL');
  const xaiKey = envValue(env, 'XAI_API_KEY');
  const openAiKey = envValue(env, 'OPENAI_API_KEY');
  const modelPath = envValue(env, 'LAZYBOY_MODEL_PATH');
  const provider: ModelProvider | undefined =
    explicit ??
    (openAiBaseUrl
      ? 'openai-chat'
      : xaiKey
        ? 'xai'
        : openAiKey
          ? 'openai-chat'
          : lazyboyBaseUrl
            ? 'openai-chat'
            : modelPath
              ? 'local-gguf'
              : undefined);
  const baseUrl = lazyboyBaseUrl ?? (isOpenAi(provider) ? openAiBaseUrl : undefined);

  const keys: KeyCandidate[] = [];
  if (xaiKey) {
    keys.push({ apiKey: xaiKey, target: provider === 'xai' ? (baseUrl ?? XAI_DEFAULT_BASE_URL) : XAI_DEFAULT_BASE_URL });
  }
  if (openAiKey) {
    keys.push({
      apiKey: openAiKey,
      target: isOpenAi(provider) ? (baseUrl ?? OPENAI_DEFAULT_BASE_URL) : (openAiBaseUrl ?? OPENAI_DEFAULT_BASE_URL),
    });
  }
  const generic = envValue(env, 'LAZYBOY_MODEL') ?? envValue(env, 'GROKBOY_MODEL');
  return {
    source: 'env',
    ...(provider ? { provider } : {}),
    ...(baseUrl ? { baseUrl } : {}),
    model: (chosen) =>
      generic ?? (chosen === 'xai' ? envValue(env, 'XAI_MODEL') : isOpenAi(chosen) ? envValue(env, 'OPENAI_MODEL') : undefined),
    ...(modelPath ? { modelPath } : {}),
    keys,
  };
}

function settingsLink(source: CredentialSource, link: CredentialLink | undefined): Link | undefined {
  if (!link) return undefined;
  const { provider, baseUrl, model, temperature, modelPath } = link.settings;
  return {
    source,
    ...(provider ? { provider } : {}),
    ...(baseUrl ? { baseUrl } : {}),
    model: () => model,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(modelPath ? { modelPath } : {}),
    keys: link.apiKey ? [{ apiKey: link.apiKey }] : [],
  };
}

/** The endpoint `links` resolve to: from the first link naming a provider or a base URL. */
function endpointOf(links: Link[]): Endpoint | undefined {
  const index = links.findIndex((link) => link.provider !== undefined || link.baseUrl !== undefined);
  const link = links[index];
  if (!link) return undefined;
  const provider =
    link.provider ?? links.slice(index + 1).find((later) => later.provider !== undefined)?.provider ?? 'openai-chat';
  return { provider, baseUrl: link.baseUrl ?? defaultBaseUrl(provider) ?? '', source: link.source };
}

function sameEndpoint(a: string, b: string): boolean {
  const normalise = (url: string): string => {
    try {
      return new URL(url).href.replace(/\/+$/, '');
    } catch {
      return url;
    }
  };
  return normalise(a) === normalise(b);
}

/**
 * Whether two settings of one link name the same endpoint (provider and base URL). A key kept with a link is
 * meant for the endpoint it had: when either changes, the key would go somewhere else, so it must go.
 */
export function sameEndpointSettings(a: ModelSettings, b: ModelSettings): boolean {
  if (a.provider !== b.provider) return false;
  if (a.baseUrl === undefined || b.baseUrl === undefined) return a.baseUrl === b.baseUrl;
  return sameEndpoint(a.baseUrl, b.baseUrl);
}

/**
 * A settings link's key goes only to the endpoint that link itself names (its provider's service or its base
 * URL): a link naming neither would pass its key to whatever a later link names, so an admin changing the
 * workspace's base URL would receive an agent's key. The environment's keys carry their own targets.
 */
function chooseKey(links: Link[], endpoint: Endpoint): { apiKey: string; source: CredentialSource } | undefined {
  for (const link of links) {
    const ownEndpoint = endpointOf([link]);
    for (const candidate of link.keys) {
      const target = candidate.target ?? ownEndpoint?.baseUrl;
      if (target !== undefined && sameEndpoint(target, endpoint.baseUrl)) {
        return { apiKey: candidate.apiKey, source: link.source };
      }
    }
  }
  return undefined;
}

function linksOf(input: ResolveModelBackendInput): Link[] {
  return [settingsLink('agent', input.agent), settingsLink('workspace', input.workspace), envLink(input.env)].filter(
    (link): link is Link => link !== undefined,
  );
}

const NOT_CONFIGURED =
  "no model provider is configured: choose one in the agent's or workspace's model settings, or set XAI_API_KEY (xAI), " +
  'OPENAI_API_KEY or OPENAI_BASE_URL (OpenAI-compatible), LAZYBOY_MODEL_PATH (a local GGUF file), or LAZYBOY_MODEL_PROVIDER';

/** Where requests go and with which key, without the model name: what listing an endpoint's models needs. */
export interface ResolvedModelEndpoint {
  provider: ModelProvider;
  /** Empty for local-gguf. */
  baseUrl: string;
  apiKey?: string;
  source: CredentialSource;
  keySource?: CredentialSource;
  /** How messages name the endpoint (ModelEndpoint.label); default its URL. */
  label?: string;
}

/** The endpoint (provider, base URL) and its key the chain resolves to; ModelNotConfiguredError when none. */
export function resolveModelEndpoint(input: ResolveModelBackendInput): ResolvedModelEndpoint {
  const links = linksOf(input);
  const endpoint = endpointOf(links);
  if (!endpoint) throw new ModelNotConfiguredError(NOT_CONFIGURED, { reason: 'no_provider' });
  if (endpoint.provider === 'local-gguf') return { provider: endpoint.provider, baseUrl: '', source: endpoint.source };
  const key = chooseKey(links, endpoint);
  const inContainer = input.inContainer ?? isInContainer(input.env);
  return {
    provider: endpoint.provider,
    baseUrl: inContainer ? rewriteLoopbackForContainer(endpoint.baseUrl) : endpoint.baseUrl,
    source: endpoint.source,
    ...(key ? { apiKey: key.apiKey, keySource: key.source } : {}),
  };
}

export function resolveModelBackend(input: ResolveModelBackendInput): ResolvedModelBackend {
  const links = linksOf(input);
  const endpoint = endpointOf(links);
  if (!endpoint) throw new ModelNotConfiguredError(NOT_CONFIGURED, { reason: 'no_provider' });
  const { provider } = endpoint;
  const temperature = links.find((link) => link.temperature !== undefined)?.temperature;
  const modelPath = links.find((link) => link.modelPath !== undefined)?.modelPath;
  let model: string | undefined;
  for (const link of links) {
    model ??= link.model(provider);
  }
  if (provider === 'local-gguf') {
    model ??= modelPath ? path.basename(modelPath, '.gguf') : undefined;
    if (!model || !modelPath) {
      throw new ModelNotConfiguredError(
        "the local-gguf provider needs the path of a GGUF file: set modelPath in the agent's or workspace's model settings, or LAZYBOY_MODEL_PATH",
        { reason: 'no_model_file', provider },
      );
    }
    return {
      provider,
      baseUrl: '',
      model,
      modelPath,
      source: endpoint.source,
      ...(temperature !== undefined ? { temperature } : {}),
    };
  }
  if (!model) {
    const alias = provider === 'xai' ? ' (or XAI_MODEL)' : ' (or OPENAI_MODEL)';
    throw new ModelNotConfiguredError(
      `no model name is configured for ${provider}: set the model in the agent's or workspace's model settings, or LAZYBOY_MODEL${alias}`,
      { reason: 'no_model', provider },
    );
  }
  const { baseUrl, apiKey, keySource } = resolveModelEndpoint(input);
  return {
    provider,
    baseUrl,
    model,
    source: endpoint.source,
    ...(apiKey !== undefined && keySource !== undefined ? { apiKey, keySource } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(modelPath ? { modelPath } : {}),
  };
}
