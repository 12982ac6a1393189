import type { ModelClient, ModelRequest, ModelResponse, ModelStreamEvent } from '@lazyboy/contracts';
import type { ModelEndpoint } from '../http/endpoint.js';
import { ModelHttp } from '../http/model-http.js';
import { assertApiKey, type ModelClientOptions } from './client-options.js';
import { ChatCompletionsStream } from './chat-completions-stream.js';
import { buildChatCompletionsBody, parseChatCompletion } from './chat-completions-wire.js';

export interface ChatCompletionsClientOptions extends ModelClientOptions {
  /** Which provider this endpoint is, for messages and the key check. Default 'openai-chat'. */
  provider?: 'openai-chat' | 'xai';
}

/** Any OpenAI-compatible Chat Completions endpoint: xAI, OpenAI, Ollama, llama.cpp server, vLLM. */
export class ChatCompletionsClient implements ModelClient {
  readonly description: string;
  private readonly endpoint: ModelEndpoint;
  private readonly http: ModelHttp;

  constructor(private readonly options: ChatCompletionsClientOptions) {
    const provider = options.provider ?? 'openai-chat';
    assertApiKey(provider, options.baseUrl, options.apiKey, options.label);
    this.endpoint = {
      provider,
      baseUrl: options.baseUrl,
      model: options.model,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.label !== undefined ? { label: options.label } : {}),
    };
    this.http = new ModelHttp(this.endpoint, options);
    this.description = `${provider}:${options.model}`;
  }

  async complete(request: ModelRequest, onEvent?: (event: ModelStreamEvent) => void): Promise<ModelResponse> {
    const body = buildChatCompletionsBody(this.options.model, request, {
      stream: onEvent !== undefined,
      ...(this.options.temperature !== undefined ? { defaultTemperature: this.options.temperature } : {}),
    });
    if (!onEvent) {
      return parseChatCompletion(await this.http.postJson('/chat/completions', body, request.signal), this.endpoint);
    }
    const stream = new ChatCompletionsStream(this.endpoint, onEvent);
    await this.http.postEventStream('/chat/completions', body, request.signal, (event) => stream.accept(event));
    return stream.finish();
  }
}
