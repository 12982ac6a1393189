import type { ModelResponse, ModelStreamEvent, ModelUsage, ToolCall } from '@lazyboy/contracts';
import { ModelProtocolError } from '../errors.js';
import type { ModelEndpoint } from '../http/endpoint.js';
import { quoteProvider } from '../http/message-text.js';
import { errorForReport, reportFromObject } from '../http/provider-errors.js';
import type { SseEvent } from '../http/sse-parser.js';
import { arrayField, isRecord, numberField, recordField, stringField, tryParseJson } from '../json-values.js';
import { argumentsText, mapChatFinishReason, parseChatUsage } from './chat-completions-wire.js';
import { syntheticToolCallId } from './message-content.js';

interface PartialCall {
  id?: string;
  name?: string;
  arguments: string;
}

/**
 * Assembles a streamed chat completion from its `data:` chunks while passing the deltas on.
 * Tool calls are keyed by their `index`: the first delta of an index brings id and name, later ones
 * bring pieces of the arguments.
 */
export class ChatCompletionsStream {
  private text = '';
  private readonly calls = new Map<number, PartialCall>();
  private lastIndex = -1;
  private finishReason: unknown;
  private usage: ModelUsage | undefined;
  private done = false;

  constructor(
    private readonly endpoint: ModelEndpoint,
    private readonly emit: (event: ModelStreamEvent) => void,
  ) {}

  accept(event: SseEvent): 'stop' | void {
    if (event.data.trim() === '[DONE]') {
      this.done = true;
      return 'stop';
    }
    const parsed = tryParseJson(event.data);
    if (!parsed.ok || !isRecord(parsed.value)) {
      throw new ModelProtocolError(
        `the model provider ${this.endpoint.provider} sent a stream chunk that is not a JSON object: ${quoteProvider(event.data, this.endpoint.apiKey, 120)}`,
        { provider: this.endpoint.provider },
      );
    }
    const chunk = parsed.value;
    if (event.event === 'error' || ('error' in chunk && chunk['error'] !== null)) {
      throw errorForReport(this.endpoint, reportFromObject(chunk));
    }
    const usage = parseChatUsage(chunk['usage']);
    if (usage) this.usage = usage;
    // Only the first choice counts: we never ask for n > 1.
    const choice = arrayField(chunk, 'choices').find((c) => isRecord(c) && (numberField(c, 'index') ?? 0) === 0);
    if (!isRecord(choice)) return;
    const delta = recordField(choice, 'delta') ?? {};
    const content = delta['content'];
    if (typeof content === 'string' && content !== '') {
      this.text += content;
      this.emit({ type: 'text_delta', text: content });
    }
    for (const callDelta of arrayField(delta, 'tool_calls')) {
      if (isRecord(callDelta)) this.acceptToolCallDelta(callDelta);
    }
    const finishReason = choice['finish_reason'];
    if (finishReason !== null && finishReason !== undefined) this.finishReason = finishReason;
  }

  private acceptToolCallDelta(delta: Record<string, unknown>): void {
    const id = stringField(delta, 'id') || undefined;
    let index = numberField(delta, 'index');
    if (index === undefined) {
      // Without an index, a new id starts a new call and anything else continues the last one.
      const last = this.calls.get(this.lastIndex);
      index =
        this.lastIndex < 0 || (id !== undefined && last?.id !== undefined && last.id !== id)
          ? this.lastIndex + 1
          : this.lastIndex;
    }
    this.lastIndex = Math.max(this.lastIndex, index);
    let call = this.calls.get(index);
    if (!call) {
      call = { arguments: '' };
      this.calls.set(index, call);
    }
    const fn = recordField(delta, 'function') ?? {};
    const name = stringField(fn, 'name') || undefined;
    const argumentsDelta = argumentsText(fn['arguments']);
    // Some servers repeat id and name on every delta; only the first is news.
    const newId = id !== undefined && call.id === undefined ? id : undefined;
    const newName = name !== undefined && call.name === undefined ? name : undefined;
    if (newId) call.id = newId;
    if (newName) call.name = newName;
    call.arguments += argumentsDelta;
    if (newId === undefined && newName === undefined && argumentsDelta === '') return;
    this.emit({
      type: 'tool_call_delta',
      index,
      ...(newId !== undefined ? { id: newId } : {}),
      ...(newName !== undefined ? { name: newName } : {}),
      ...(argumentsDelta !== '' ? { argumentsDelta } : {}),
    });
  }

  finish(): ModelResponse {
    if (!this.done && this.finishReason === undefined) {
      throw new ModelProtocolError(
        `the stream from the model provider ${this.endpoint.provider} ended before the response was complete`,
        {
          provider: this.endpoint.provider,
        },
      );
    }
    const toolCalls: ToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([, call]) =>
        call.name ? [{ id: call.id ?? syntheticToolCallId(), name: call.name, arguments: call.arguments }] : [],
      );
    return {
      text: this.text,
      toolCalls,
      finishReason: mapChatFinishReason(this.finishReason, toolCalls.length > 0),
      ...(this.usage ? { usage: this.usage } : {}),
    };
  }
}
