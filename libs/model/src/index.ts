export * from './errors.js';
export * from './provider-defaults.js';
export { DEFAULT_TIMEOUT_MS, type ModelHttpOptions, type RetryNotice } from './http/model-http.js';
export { ModelEndpointPolicy, type ModelEndpointPolicyOptions } from './http/endpoint-policy.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './http/retry-policy.js';
export { assertApiKey, type ModelClientOptions } from './providers/client-options.js';
export { ChatCompletionsClient, type ChatCompletionsClientOptions } from './providers/chat-completions.js';
export { ResponsesClient } from './providers/responses.js';
export { LOCAL_GGUF_DEFAULTS, LocalGgufClient, type LocalGgufClientOptions } from './providers/local-gguf.js';
export { modelErrorCode } from './error-codes.js';
export {
  CHECK_TIMEOUT_MS,
  type CheckFailure,
  checkFailureOf,
  type EndpointCheckOptions,
  findLocalModelServers,
  type FoundLocalModelServer,
  listModels,
  LOCAL_MODEL_SERVERS,
  LOCAL_PROBE_TIMEOUT_MS,
  type LocalModelServerCandidate,
  type LocalProbeOptions,
  type ModelListEndpoint,
  type ModelTestResult,
  testModel,
} from './endpoint-checks.js';
export {
  type CredentialLink,
  type CredentialSource,
  isInContainer,
  type ModelBackend,
  type ResolvedModelBackend,
  type ResolvedModelEndpoint,
  type ResolveModelBackendInput,
  resolveModelBackend,
  resolveModelEndpoint,
  rewriteLoopbackForContainer,
  sameEndpointSettings,
} from './credentials.js';
export { closeModelClient, createModelClient, type CreateModelClientOptions } from './create-model-client.js';
export { type ModelListRequest, ScriptedModelServer, type ScriptedModelServerOptions } from './scripted/scripted-model-server.js';
export type { ReceivedRequest, Script, ScriptedApi, ScriptedToolCall, Turn } from './scripted/script.js';
export { scriptedBackend } from './scripted/scripted-backend.js';
