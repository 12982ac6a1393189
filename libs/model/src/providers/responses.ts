import type { ModelClient, ModelRequest, ModelResponse, ModelStreamEvent } from '@lazyboy/contracts';
import type { ModelEndpoint } from '../http/endpoint.js';
import { ModelHttp } from '../http/model-http.js';
import { assertApiKey, type ModelClientOptions } from './client-options.js';
import { ResponsesStream } from './responses-stream.js';
import { buildResponsesBody, parseResponse } from './responses-wire.js';

/** The OpenAI Responses API (POST {baseUrl}/responses), stateless: every request carries the whole conversation. */
export class ResponsesClient implements ModelClient {
  readonly description: string;
  private readonly endpoint: ModelEndpoint;
  private readonly http: ModelHttp;

  constructor(private readonly options: ModelClientOptions) {
    assertApiKey('openai-responses', options.baseUrl, options.apiKey, options.label);
    this.endpoint = {
      provider: 'openai-responses',
      baseUrl: options.baseUrl,
      model: options.model,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.label !== undefined ? { label: options.label } : {}),
    };
    this.http = new ModelHttp(this.endpoint, options);
    this.description = `openai-responses:${options.model}`;
  }

  async complete(request: ModelRequest, onEvent?: (event: ModelStreamEvent) => void): Promise<ModelResponse> {
    const body = buildResponsesBody(this.options.model, request, {
      stream: onEvent !== undefined,
      ...(this.options.temperature !== undefined ? { defaultTemperature: this.options.temperature } : {}),
    });
    if (!onEvent) return parseResponse(await this.http.postJson('/responses', body, request.signal), this.endpoint);
    const stream = new ResponsesStream(this.endpoint, onEvent);
    await this.http.postEventStream('/responses', body, request.signal, (event) => stream.accept(event));
    return stream.finish();
  }
}
