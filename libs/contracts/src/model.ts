import { z } from 'zod';

// The provider-neutral shape of a conversation with a model, and the port every model provider
// implements (libs/model). libs/agent speaks only these types; wire formats (Chat Completions,
// Responses, llama.cpp) are translated inside each provider.

export const toolCallSchema = z.object({
  /** Provider-assigned id pairing the call with its result. */
  id: z.string().min(1),
  name: z.string().min(1),
  /** The arguments exactly as the model produced them: JSON text, possibly invalid. */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const contentPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), mimeType: z.string(), dataBase64: z.string() }),
]);
export type ContentPart = z.infer<typeof contentPartSchema>;

export const chatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(contentPartSchema)]) }),
  z.object({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    toolCalls: z.array(toolCallSchema).optional(),
  }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), content: z.union([z.string(), z.array(contentPartSchema)]) }),
]);
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** A tool as the model sees it: name, description written for the model, JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type ToolChoice = 'auto' | 'none' | 'required';

export interface ModelRequest {
  messages: ChatMessage[];
  /** Empty or absent: the model answers with text only. */
  tools?: ToolSpec[];
  toolChoice?: ToolChoice;
  temperature?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
}

export const finishReasonSchema = z.enum(['stop', 'tool_calls', 'length', 'content_filter', 'unknown']);
export type FinishReason = z.infer<typeof finishReasonSchema>;

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelResponse {
  /** Assistant text (may be empty when the model only calls tools). */
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage?: ModelUsage;
}

/** Incremental output while a response streams in. */
export type ModelStreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call_delta'; index: number; id?: string; name?: string; argumentsDelta?: string };

/** The model port: one completion, streamed to `onEvent` when given. */
export interface ModelClient {
  /** A label for logs and events, e.g. "openai-chat:grok-4". Never includes a key. */
  readonly description: string;
  complete(request: ModelRequest, onEvent?: (event: ModelStreamEvent) => void): Promise<ModelResponse>;
}

export const modelProviderSchema = z.enum(['openai-chat', 'openai-responses', 'xai', 'local-gguf']);
export type ModelProvider = z.infer<typeof modelProviderSchema>;

/** Model settings of an agent or a workspace (stored as JSON), validated at every boundary. */
export const modelSettingsSchema = z.object({
  provider: modelProviderSchema.optional(),
  model: z.string().min(1).optional(),
  baseUrl: z.string().url().optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Path of a GGUF file, for the local provider. */
  modelPath: z.string().min(1).optional(),
});
export type ModelSettings = z.infer<typeof modelSettingsSchema>;

/**
 * The environment variables the credential chain's last link reads (libs/model credentials.ts), model keys
 * among them: the processes that run agents get them, no other child of `lazyboy up` does. A test keeps
 * this list and what libs/model reads the same.
 */
export const MODEL_ENV_VARIABLES = [
  'LAZYBOY_MODEL_PROVIDER',
  'LAZYBOY_MODEL_PATH',
  'LAZYBOY_MODEL',
  'GROKBOY_MODEL',
  'XAI_MODEL',
  'OPENAI_MODEL',
  'LAZYBOY_MODEL_BASE_URL',
  'OPENAI_BASE_URL',
  'XAI_API_KEY',
  'OPENAI_API_KEY',
  'LAZYBOY_IN_CONTAINER',
] as const;
