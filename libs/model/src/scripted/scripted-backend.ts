import type { ModelBackend } from '../credentials.js';
import type { ScriptedModelServer } from './scripted-model-server.js';

/** What createModelClient needs to talk to a running scripted server, through either API. */
export function scriptedBackend(
  server: ScriptedModelServer,
  provider: 'openai-chat' | 'openai-responses' = 'openai-chat',
): ModelBackend {
  // A key, so that the Authorization header travels as it would to a provider (the server ignores it).
  return { provider, baseUrl: server.url, model: server.model, apiKey: 'scripted-key' };
}
