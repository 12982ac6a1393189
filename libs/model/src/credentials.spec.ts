import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createModelClient } from './create-model-client.js';
import {
  isInContainer,
  resolveModelBackend,
  resolveModelEndpoint,
  rewriteLoopbackForContainer,
  sameEndpointSettings,
} from './credentials.js';
import { modelErrorCode } from './error-codes.js';
import { MissingApiKeyError, ModelAuthError, ModelNotConfiguredError } from './errors.js';
import { OPENAI_DEFAULT_BASE_URL, XAI_DEFAULT_BASE_URL } from './provider-defaults.js';
import { ChatCompletionsClient } from './providers/chat-completions.js';
import { LocalGgufClient } from './providers/local-gguf.js';
import { ResponsesClient } from './providers/responses.js';
import { scriptedBackend } from './scripted/scripted-backend.js';
import { ScriptedModelServer } from './scripted/scripted-model-server.js';

// Outside a container unless a test says otherwise: this very test may well run inside one.
const resolve = (input: Omit<Parameters<typeof resolveModelBackend>[0], 'inContainer'> & { inContainer?: boolean }) =>
  resolveModelBackend({ inContainer: false, ...input });

describe('resolveModelBackend', () => {
  it('takes xAI from XAI_API_KEY and the model from the seeds’ aliases', () => {
    expect(resolve({ env: { XAI_API_KEY: 'xai-env', XAI_MODEL: 'grok-4' } })).toEqual({
      provider: 'xai',
      baseUrl: XAI_DEFAULT_BASE_URL,
      model: 'grok-4',
      apiKey: 'xai-env',
      source: 'env',
      keySource: 'env',
    });
    expect(resolve({ env: { XAI_API_KEY: 'k', XAI_MODEL: 'grok-3', GROKBOY_MODEL: 'grok-4' } }).model).toBe('grok-4');
    expect(resolve({ env: { XAI_API_KEY: 'k', GROKBOY_MODEL: 'grok-4', LAZYBOY_MODEL: 'grok-5' } }).model).toBe('grok-5');
  });

  it('reads an OpenAI-compatible endpoint from OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY', () => {
    expect(
      resolve({
        env: {
          OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
          OPENAI_MODEL: 'qwen3',
          OPENAI_API_KEY: 'ollama',
          XAI_API_KEY: 'x',
          XAI_MODEL: 'grok-4',
        },
      }),
    ).toMatchObject({ provider: 'openai-chat', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3', apiKey: 'ollama' });
    expect(resolve({ env: { OPENAI_API_KEY: 'sk', OPENAI_MODEL: 'gpt-5' } })).toMatchObject({
      provider: 'openai-chat',
      baseUrl: OPENAI_DEFAULT_BASE_URL,
      apiKey: 'sk',
    });
  });

  it('lets LAZYBOY_MODEL_PROVIDER and LAZYBOY_MODEL_BASE_URL override the guesses', () => {
    expect(
      resolve({
        env: {
          LAZYBOY_MODEL_PROVIDER: 'openai-responses',
          LAZYBOY_MODEL_BASE_URL: 'http://10.0.0.5:8000/v1',
          LAZYBOY_MODEL: 'm',
          XAI_API_KEY: 'x',
        },
      }),
    ).toEqual({ provider: 'openai-responses', baseUrl: 'http://10.0.0.5:8000/v1', model: 'm', source: 'env' });
    expect(() => resolve({ env: { LAZYBOY_MODEL_PROVIDER: 'anthropic', LAZYBOY_MODEL: 'm' } })).toThrow(
      /LAZYBOY_MODEL_PROVIDER='anthropic'.*xai/,
    );
    expect(() => resolve({ env: { OPENAI_BASE_URL: 'localhost:11434', OPENAI_MODEL: 'm' } })).toThrow(ModelNotConfiguredError);
  });

  it('prefers the agent, then the workspace, then the environment, field by field', () => {
    const backend = resolve({
      agent: { settings: { model: 'grok-agent', temperature: 0.1 } },
      workspace: { settings: { provider: 'xai', model: 'grok-workspace', temperature: 0.9 }, apiKey: 'workspace-key' },
      env: { OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: 'gpt-env' },
    });
    expect(backend).toEqual({
      provider: 'xai',
      baseUrl: XAI_DEFAULT_BASE_URL,
      model: 'grok-agent',
      temperature: 0.1,
      apiKey: 'workspace-key',
      source: 'workspace',
      keySource: 'workspace',
    });
    // An agent's key without the agent's own endpoint is never sent to the endpoint it inherits: the workspace's
    // base URL is the workspace admin's to change, and the key was not saved for it.
    expect(
      resolve({
        agent: { settings: {}, apiKey: 'agent-key' },
        workspace: { settings: { provider: 'xai', model: 'g' }, apiKey: 'workspace-key' },
        env: {},
      }),
    ).toMatchObject({ apiKey: 'workspace-key', keySource: 'workspace', source: 'workspace' });
    const inherited = resolve({
      agent: { settings: {}, apiKey: 'agent-key' },
      workspace: { settings: { provider: 'openai-chat', baseUrl: 'http://attacker.example/v1', model: 'g' } },
      env: {},
    });
    expect(inherited.apiKey).toBeUndefined();
    // With its own endpoint, the agent's key goes there and wins over the workspace's.
    expect(
      resolve({
        agent: { settings: { provider: 'xai' }, apiKey: 'agent-key' },
        workspace: { settings: { provider: 'xai', model: 'g' }, apiKey: 'workspace-key' },
        env: {},
      }),
    ).toMatchObject({ apiKey: 'agent-key', keySource: 'agent', source: 'agent' });
  });

  it('takes the endpoint as one piece: an agent naming a provider is not sent to the environment’s base URL', () => {
    const backend = resolve({
      workspace: { settings: { provider: 'xai', model: 'grok-4' }, apiKey: 'workspace-key' },
      env: { LAZYBOY_MODEL_BASE_URL: 'http://127.0.0.1:8080/v1', LAZYBOY_MODEL_PROVIDER: 'openai-chat' },
    });
    expect(backend).toMatchObject({ provider: 'xai', baseUrl: XAI_DEFAULT_BASE_URL, apiKey: 'workspace-key' });
  });

  it('never sends a key to a host other than the one it was configured for', () => {
    const elsewhere = resolve({
      agent: { settings: { provider: 'openai-chat', baseUrl: 'https://models.example.net/v1', model: 'm' } },
      workspace: { settings: { provider: 'xai' }, apiKey: 'workspace-key' },
      env: { XAI_API_KEY: 'xai-env', OPENAI_API_KEY: 'sk-env' },
    });
    expect(elsewhere.apiKey).toBeUndefined();
    // A workspace key with no settings was meant for the environment's endpoint, not for the agent's.
    expect(
      resolve({
        agent: { settings: { baseUrl: 'https://models.example.net/v1', model: 'm' } },
        workspace: { settings: {}, apiKey: 'workspace-key' },
        env: { XAI_API_KEY: 'xai-env' },
      }).apiKey,
    ).toBeUndefined();
    // The environment's OpenAI key goes to OpenAI, not to an agent's xAI endpoint; its xAI key does.
    expect(
      resolve({ agent: { settings: { provider: 'xai', model: 'g' } }, env: { OPENAI_API_KEY: 'sk-env' } }).apiKey,
    ).toBeUndefined();
    expect(
      resolve({
        agent: { settings: { provider: 'xai', model: 'g' } },
        env: { OPENAI_API_KEY: 'sk-env', XAI_API_KEY: 'xai-env' },
      }),
    ).toMatchObject({
      apiKey: 'xai-env',
      keySource: 'env',
    });
  });

  it('gives an agent with its own base URL and no key of its own no key meant for another endpoint', () => {
    const everyKey = {
      workspace: {
        settings: { provider: 'openai-chat' as const, baseUrl: 'https://gateway.example.net/v1' },
        apiKey: 'workspace-key',
      },
      env: {
        OPENAI_BASE_URL: 'http://192.168.1.20:11434/v1',
        OPENAI_API_KEY: 'sk-env',
        XAI_API_KEY: 'xai-env',
        LAZYBOY_MODEL: 'm',
      },
    };
    for (const baseUrl of ['https://attacker.example/v1', 'https://gateway.example.net/other', 'https://api.openai.com/v1/x']) {
      const backend = resolve({ agent: { settings: { baseUrl } }, ...everyKey });
      expect({ baseUrl: backend.baseUrl, apiKey: backend.apiKey }).toEqual({ baseUrl, apiKey: undefined });
    }
    // A provider of its own does not change that: the endpoint is the agent's, and no key was stored for it.
    expect(
      resolve({ agent: { settings: { provider: 'xai', baseUrl: 'https://attacker.example/v1' } }, ...everyKey }).apiKey,
    ).toBe(undefined);
    // The same endpoint written another way is the same endpoint: its own key goes there, and only there.
    expect(resolve({ agent: { settings: { baseUrl: 'https://GATEWAY.example.net:443/v1/' } }, ...everyKey })).toMatchObject({
      apiKey: 'workspace-key',
      keySource: 'workspace',
    });
  });

  it('tells whether two settings name the same endpoint', () => {
    expect(sameEndpointSettings({ baseUrl: 'http://h:1/v1', model: 'a' }, { baseUrl: 'http://H:1/v1/', model: 'b' })).toBe(true);
    expect(sameEndpointSettings({ model: 'a' }, { temperature: 1 })).toBe(true);
    expect(sameEndpointSettings({ baseUrl: 'http://h:1/v1' }, { baseUrl: 'http://h:2/v1' })).toBe(false);
    expect(sameEndpointSettings({ baseUrl: 'http://h:1/v1' }, {})).toBe(false);
    expect(sameEndpointSettings({ provider: 'xai' }, { provider: 'openai-chat' })).toBe(false);
    expect(sameEndpointSettings({}, { provider: 'xai' })).toBe(false);
  });

  it('keeps a base URL without a provider on the provider named further down', () => {
    expect(
      resolve({
        agent: { settings: { baseUrl: 'http://127.0.0.1:9000/v1' } },
        workspace: { settings: { provider: 'openai-responses', model: 'm' } },
        env: {},
      }),
    ).toMatchObject({ provider: 'openai-responses', baseUrl: 'http://127.0.0.1:9000/v1', source: 'agent' });
    expect(resolve({ agent: { settings: { baseUrl: 'http://127.0.0.1:9000/v1', model: 'm' } }, env: {} }).provider).toBe(
      'openai-chat',
    );
  });

  it('says which setting to set when the model or the provider is missing', () => {
    expect(() => resolve({ env: { XAI_API_KEY: 'k' } })).toThrow(ModelNotConfiguredError);
    expect(() => resolve({ env: { XAI_API_KEY: 'k' } })).toThrow(
      /no model name is configured for xai: .*LAZYBOY_MODEL \(or XAI_MODEL\)/,
    );
    expect(() => resolve({ env: { OPENAI_API_KEY: 'k' } })).toThrow(/LAZYBOY_MODEL \(or OPENAI_MODEL\)/);
    expect(() => resolve({ env: {} })).toThrow(/no model provider is configured.*XAI_API_KEY/);
    expect(() => resolve({ agent: { settings: { provider: 'local-gguf' } }, env: {} })).toThrow(/modelPath.*LAZYBOY_MODEL_PATH/);
  });

  it('takes a local GGUF file from LAZYBOY_MODEL_PATH', () => {
    const local = { provider: 'local-gguf', baseUrl: '', model: 'tiny', modelPath: '/models/tiny.gguf', source: 'env' };
    expect(resolve({ env: { LAZYBOY_MODEL_PROVIDER: 'local-gguf', LAZYBOY_MODEL_PATH: '/models/tiny.gguf' } })).toEqual(local);
    // Alone it selects local-gguf; any other provider hint wins over it.
    expect(resolve({ env: { LAZYBOY_MODEL_PATH: '/models/tiny.gguf' } })).toEqual(local);
    expect(resolve({ env: { LAZYBOY_MODEL_PATH: '/models/tiny.gguf', XAI_API_KEY: 'k', XAI_MODEL: 'grok' } }).provider).toBe(
      'xai',
    );
    expect(
      resolve({
        agent: { settings: { provider: 'local-gguf', modelPath: '/agents/b.gguf' } },
        env: { LAZYBOY_MODEL_PATH: '/x.gguf' },
      }),
    ).toMatchObject({ modelPath: '/agents/b.gguf', model: 'b', source: 'agent' });
  });

  it('reaches a model server on the host from inside a container', () => {
    const env = { OPENAI_BASE_URL: 'http://localhost:11434/v1', OPENAI_MODEL: 'qwen3', LAZYBOY_IN_CONTAINER: '1' };
    expect(resolveModelBackend({ env }).baseUrl).toBe('http://host.docker.internal:11434/v1');
    expect(resolve({ env }).baseUrl).toBe('http://localhost:11434/v1');
    expect(rewriteLoopbackForContainer('http://127.0.0.1:8080/v1')).toBe('http://host.docker.internal:8080/v1');
    expect(rewriteLoopbackForContainer('http://[::1]:8080/v1')).toBe('http://host.docker.internal:8080/v1');
    expect(rewriteLoopbackForContainer(XAI_DEFAULT_BASE_URL)).toBe(XAI_DEFAULT_BASE_URL);
    // The key chosen for the endpoint stays with it after the rewrite.
    expect(resolveModelBackend({ env: { ...env, OPENAI_API_KEY: 'ollama' }, inContainer: true }).apiKey).toBe('ollama');
  });

  it('detects a container from LAZYBOY_IN_CONTAINER or /.dockerenv', () => {
    expect(isInContainer({ LAZYBOY_IN_CONTAINER: '1' })).toBe(true);
    // Opt-in only: a /.dockerenv file (this very sandbox has one) does not count.
    expect(isInContainer({})).toBe(false);
    expect(isInContainer({ LAZYBOY_IN_CONTAINER: '0' })).toBe(false);
  });
});

describe('createModelClient', () => {
  const server = new ScriptedModelServer();

  beforeAll(async () => {
    await server.start();
  });
  afterAll(() => server.close());

  it('picks the client for each provider', () => {
    const base = { baseUrl: server.url, model: 'm', apiKey: 'k' };
    expect(createModelClient({ ...base, provider: 'xai' })).toBeInstanceOf(ChatCompletionsClient);
    expect(createModelClient({ ...base, provider: 'openai-chat' })).toBeInstanceOf(ChatCompletionsClient);
    expect(createModelClient({ ...base, provider: 'openai-responses' })).toBeInstanceOf(ResponsesClient);
    expect(createModelClient({ ...base, provider: 'xai' }).description).toBe('xai:m');
    // Loads nothing until its first request.
    const local = createModelClient({ provider: 'local-gguf', baseUrl: '', model: 'tiny', modelPath: '/models/tiny.gguf' });
    expect(local).toBeInstanceOf(LocalGgufClient);
    expect(local.description).toBe('local-gguf:tiny');
    expect(() => createModelClient({ provider: 'local-gguf', baseUrl: '', model: 'tiny' })).toThrow(ModelNotConfiguredError);
  });

  it('refuses a hosted provider without a key before sending anything', () => {
    server.setScript([{ text: 'unused' }]);
    const attempt = () => createModelClient({ ...scriptedBackend(server), provider: 'xai', apiKey: undefined });
    expect(attempt).toThrow(MissingApiKeyError);
    expect(attempt).toThrow(ModelAuthError);
    expect(attempt).toThrow(/no API key for xai .*XAI_API_KEY/);
    expect(() => createModelClient({ provider: 'openai-responses', baseUrl: OPENAI_DEFAULT_BASE_URL, model: 'gpt' })).toThrow(
      /OPENAI_API_KEY/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('lets a local OpenAI-compatible server go without a key', async () => {
    server.setScript([{ text: 'local answer' }]);
    const client = createModelClient({ ...scriptedBackend(server), apiKey: undefined });
    expect((await client.complete({ messages: [{ role: 'user', content: 'hi' }] })).text).toBe('local answer');
    expect(server.requests[0]?.headers).not.toHaveProperty('authorization');
  });

  it('sends the configured temperature when the request sets none', async () => {
    server.setScript([{ text: 'a' }, { text: 'b' }]);
    const client = createModelClient({ ...scriptedBackend(server, 'openai-responses'), temperature: 0.4 });
    await client.complete({ messages: [{ role: 'user', content: 'hi' }] });
    await client.complete({ messages: [{ role: 'user', content: 'hi' }], temperature: 1.5 });
    expect(server.requests.map((request) => request.body['temperature'])).toEqual([0.4, 1.5]);
  });
});

describe('what is missing, as a stable code', () => {
  const codeOf = (input: Parameters<typeof resolveModelBackend>[0]) => {
    try {
      resolveModelBackend({ inContainer: false, ...input });
      return 'resolved';
    } catch (error) {
      return modelErrorCode(error);
    }
  };

  it('names no provider, no model name and no model file apart', () => {
    expect(codeOf({ env: {} })).toBe('model_not_configured');
    expect(codeOf({ env: { LAZYBOY_MODEL_PROVIDER: 'nonsense' } })).toBe('model_not_configured');
    expect(codeOf({ workspace: { settings: { baseUrl: 'http://192.168.1.2:11434/v1' } }, env: {} })).toBe('model_name_missing');
    expect(codeOf({ workspace: { settings: { provider: 'local-gguf' } }, env: {} })).toBe('model_file_missing');
    expect(codeOf({ workspace: { settings: { baseUrl: 'http://192.168.1.2:11434/v1', model: 'm' } }, env: {} })).toBe('resolved');
  });

  it('resolves the endpoint and its key without a model name (for a model list)', () => {
    const workspace = { settings: { baseUrl: 'http://192.168.1.2:8000/v1' }, apiKey: 'sk-workspace' };
    expect(resolveModelEndpoint({ workspace, env: { OPENAI_API_KEY: 'sk-env' }, inContainer: false })).toEqual({
      provider: 'openai-chat',
      baseUrl: 'http://192.168.1.2:8000/v1',
      apiKey: 'sk-workspace',
      source: 'workspace',
      keySource: 'workspace',
    });
    // The environment's key is meant for its own endpoint only.
    expect(resolveModelEndpoint({ workspace: { settings: workspace.settings }, env: { OPENAI_API_KEY: 'sk-env' } })).toEqual({
      provider: 'openai-chat',
      baseUrl: 'http://192.168.1.2:8000/v1',
      source: 'workspace',
    });
    expect(() => resolveModelEndpoint({ env: {} })).toThrow(ModelNotConfiguredError);
  });
});
