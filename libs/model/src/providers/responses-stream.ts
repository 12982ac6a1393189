import type { ModelResponse, ModelStreamEvent, ToolCall } from '@lazyboy/contracts';
import { ModelProtocolError } from '../errors.js';
import type { ModelEndpoint } from '../http/endpoint.js';
import { quoteProvider } from '../http/message-text.js';
import { errorForReport, reportFromObject } from '../http/provider-errors.js';
import type { SseEvent } from '../http/sse-parser.js';
import { isRecord, type JsonRecord, numberField, recordField, stringField, tryParseJson } from '../json-values.js';
import { syntheticToolCallId } from './message-content.js';
import { mapResponsesFinishReason, parseResponse, parseResponsesUsage, throwIfFailed } from './responses-wire.js';

interface PartialCall {
  /** Position among the function calls of this response: the `index` of tool_call_delta events. */
  ordinal: number;
  id?: string;
  name?: string;
  arguments: string;
}

/**
 * Assembles a streamed Responses answer from its typed events while passing the deltas on. Function
 * calls are announced by `response.output_item.added` (call_id, name) and filled by
 * `response.function_call_arguments.delta`, both addressed by output_index or item_id.
 */
export class ResponsesStream {
  private text = '';
  private readonly calls: PartialCall[] = [];
  private readonly byOutputIndex = new Map<number, PartialCall>();
  private readonly byItemId = new Map<string, PartialCall>();
  private final: JsonRecord | undefined;

  constructor(
    private readonly endpoint: ModelEndpoint,
    private readonly emit: (event: ModelStreamEvent) => void,
  ) {}

  accept(event: SseEvent): 'stop' | void {
    if (event.data.trim() === '[DONE]') return 'stop';
    const parsed = tryParseJson(event.data);
    if (!parsed.ok || !isRecord(parsed.value)) {
      throw new ModelProtocolError(
        `the model provider ${this.endpoint.provider} sent a stream event that is not a JSON object: ${quoteProvider(event.data, this.endpoint.apiKey, 120)}`,
        { provider: this.endpoint.provider },
      );
    }
    const data = parsed.value;
    const type = stringField(data, 'type') ?? event.event;
    switch (type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const delta = stringField(data, 'delta') ?? '';
        if (delta !== '') {
          this.text += delta;
          this.emit({ type: 'text_delta', text: delta });
        }
        return;
      }
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const item = recordField(data, 'item');
        if (item?.['type'] === 'function_call') this.acceptFunctionCallItem(data, item);
        return;
      }
      case 'response.function_call_arguments.delta': {
        const call = this.callFor(data);
        const delta = stringField(data, 'delta') ?? '';
        if (delta !== '') {
          call.arguments += delta;
          this.emit({ type: 'tool_call_delta', index: call.ordinal, argumentsDelta: delta });
        }
        return;
      }
      case 'response.function_call_arguments.done': {
        const full = stringField(data, 'arguments');
        if (full !== undefined) this.settleArguments(this.callFor(data), full);
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
        this.final = recordField(data, 'response') ?? {
          status: type === 'response.incomplete' ? 'incomplete' : 'completed',
        };
        this.replayIfNothingStreamed(this.final);
        return 'stop';
      case 'response.failed':
        throwIfFailed({ ...recordField(data, 'response'), status: 'failed' }, this.endpoint);
        return;
      case 'error':
        throw errorForReport(this.endpoint, reportFromObject(data));
      default:
        return;
    }
  }

  private callFor(data: JsonRecord): PartialCall {
    const itemId = stringField(data, 'item_id');
    const outputIndex = numberField(data, 'output_index');
    const known =
      (itemId !== undefined ? this.byItemId.get(itemId) : undefined) ??
      (outputIndex !== undefined ? this.byOutputIndex.get(outputIndex) : undefined);
    if (known) return known;
    const call: PartialCall = { ordinal: this.calls.length, arguments: '' };
    this.calls.push(call);
    if (itemId !== undefined) this.byItemId.set(itemId, call);
    if (outputIndex !== undefined) this.byOutputIndex.set(outputIndex, call);
    return call;
  }

  private acceptFunctionCallItem(data: JsonRecord, item: JsonRecord): void {
    const itemId = stringField(item, 'id');
    const call = this.callFor({ ...data, ...(itemId !== undefined ? { item_id: itemId } : {}) });
    const id = call.id === undefined ? stringField(item, 'call_id') || undefined : undefined;
    const name = call.name === undefined ? stringField(item, 'name') || undefined : undefined;
    if (id !== undefined) call.id = id;
    if (name !== undefined) call.name = name;
    if (id !== undefined || name !== undefined) {
      this.emit({
        type: 'tool_call_delta',
        index: call.ordinal,
        ...(id !== undefined ? { id } : {}),
        ...(name !== undefined ? { name } : {}),
      });
    }
    const full = stringField(item, 'arguments');
    if (full !== undefined && full !== '') this.settleArguments(call, full);
  }

  /** A complete arguments text is authoritative; what it adds to the deltas so far still goes out as a delta. */
  private settleArguments(call: PartialCall, full: string): void {
    if (full.startsWith(call.arguments) && full.length > call.arguments.length) {
      this.emit({ type: 'tool_call_delta', index: call.ordinal, argumentsDelta: full.slice(call.arguments.length) });
    }
    call.arguments = full;
  }

  /** Some servers send only the final response; its output then becomes the deltas nobody streamed. */
  private replayIfNothingStreamed(response: JsonRecord): void {
    if (this.text !== '' || this.calls.length > 0 || !Array.isArray(response['output'])) return;
    const whole = parseResponse({ status: 'completed', ...response }, this.endpoint);
    if (whole.text !== '') {
      this.text = whole.text;
      this.emit({ type: 'text_delta', text: whole.text });
    }
    for (const call of whole.toolCalls) {
      const partial: PartialCall = { ordinal: this.calls.length, id: call.id, name: call.name, arguments: call.arguments };
      this.calls.push(partial);
      this.emit({
        type: 'tool_call_delta',
        index: partial.ordinal,
        id: call.id,
        name: call.name,
        argumentsDelta: call.arguments,
      });
    }
  }

  finish(): ModelResponse {
    if (!this.final) {
      throw new ModelProtocolError(
        `the stream from the model provider ${this.endpoint.provider} ended before the response was complete`,
        {
          provider: this.endpoint.provider,
        },
      );
    }
    const toolCalls: ToolCall[] = this.calls.flatMap((call) =>
      call.name ? [{ id: call.id ?? syntheticToolCallId(), name: call.name, arguments: call.arguments }] : [],
    );
    const usage = parseResponsesUsage(this.final['usage']);
    return {
      text: this.text,
      toolCalls,
      finishReason: mapResponsesFinishReason({ status: 'completed', ...this.final }, toolCalls.length > 0),
      ...(usage ? { usage } : {}),
    };
  }
}
