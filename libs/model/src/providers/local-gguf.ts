import path from 'node:path';
import type {
  ChatMessage,
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  ToolCall,
  ToolSpec,
} from '@lazyboy/contracts';
import type {
  LlamaCompletion,
  LlamaCompletionGenerationOptions,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
} from 'node-llama-cpp';
import { LocalRuntimeError, ModelAbortedError, ModelError, ModelProtocolError, ModelRequestError } from '../errors.js';
import { oneLine } from '../http/message-text.js';
import { tryParseJson } from '../json-values.js';
import type { GrammarSchema } from './local-gguf/grammar-schema.js';
import { withPlainNumbers } from './local-gguf/number-rules.js';
import { acquireModel, describeFailure, type LoadedModel } from './local-gguf/runtime.js';
import { SerialQueue } from './local-gguf/serial-queue.js';
import { readToolReply, type ToolReply, toolReplySchema, truncatedAnswer } from './local-gguf/tool-reply.js';
import { buildTranscript, type FittedTranscript, fitTranscript, TURN_STOP_TRIGGERS } from './local-gguf/transcript.js';

// The local-gguf provider: a GGUF model run in this process by llama.cpp (through node-llama-cpp), on the
// CPU. The conversation becomes a plain-text transcript (transcript.ts); without tools the model writes
// free text, with tools a grammar forces its reply into one JSON object that is a call of an offered tool
// or a plain answer (tool-reply.ts). Nothing is loaded until the first request.

export const LOCAL_GGUF_DEFAULTS = { contextSize: 4096, maxOutputTokens: 1024, threads: 1 } as const;

export interface LocalGgufClientOptions {
  /** The GGUF file, as the settings name it (relative paths are relative to the working directory). */
  modelPath: string;
  /** A label for `description`. Default: the file name without `.gguf`. */
  model?: string;
  /** Tokens of context, prompt and reply together. Default 4096, or the model's training context if smaller. */
  contextSize?: number;
  /** For requests that set no maxOutputTokens. Default 1024. */
  maxOutputTokens?: number;
  /** CPU threads evaluating this client's requests. Default 1. */
  threads?: number;
  /** For requests that set no temperature. Default 0: always the most likely token. */
  temperature?: number;
  /** Sampling seed, for repeatable output at temperatures above 0. Default: a random one per request. */
  seed?: number;
}

interface Session {
  loaded: LoadedModel & { release: () => Promise<void> };
  context: LlamaContext;
  /** One sequence for every request: requests take turns (SerialQueue), so one is all a client needs. */
  sequence: LlamaContextSequence;
  completion: LlamaCompletion;
  contextSize: number;
  /** Grammars by schema: an agent loop offers the same tools on every turn. */
  grammars: Map<string, LlamaGrammar>;
}

/** What one generation needs besides the prompt. */
interface Generation {
  session: Session;
  prompt: FittedTranscript;
  options: LlamaCompletionGenerationOptions & { maxTokens: number };
  emit: (event: ModelStreamEvent) => void;
  usage: () => ModelResponse['usage'];
}

const PROVIDER = { provider: 'local-gguf' };
const GRAMMAR_CACHE_SIZE = 16;

/**
 * A ModelClient for a GGUF file run in-process. It holds native memory (the model's weights, shared with
 * other clients of the same file, and its own context): call close() (or closeModelClient) when done with
 * it, or that memory stays taken until the process exits.
 */
export class LocalGgufClient implements ModelClient {
  readonly description: string;
  private readonly queue = new SerialQueue();
  private readonly closing = new AbortController();
  private session: Promise<Session> | undefined;
  private closed: Promise<void> | undefined;

  constructor(private readonly options: LocalGgufClientOptions) {
    this.description = `local-gguf:${options.model ?? path.basename(options.modelPath, '.gguf')}`;
  }

  complete(request: ModelRequest, onEvent?: (event: ModelStreamEvent) => void): Promise<ModelResponse> {
    if (this.closed) return Promise.reject(new LocalRuntimeError('this local model client is closed', PROVIDER));
    const signal = request.signal ? AbortSignal.any([request.signal, this.closing.signal]) : this.closing.signal;
    return this.queue.run(
      () => this.completeNow(request, signal, onEvent),
      signal,
      () => this.abortedError(),
    );
  }

  /** Stops a running request, then frees the context, and the model if no other client uses it. Idempotent. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing.abort();
      await this.queue.run(
        async () => undefined,
        undefined,
        () => this.abortedError(),
      );
      const session = await this.session?.catch(() => undefined);
      this.session = undefined;
      if (!session) return;
      session.completion.dispose();
      session.sequence.dispose();
      await session.context.dispose();
      await session.loaded.release();
    })();
    return this.closed;
  }

  private open(): Promise<Session> {
    this.session ??= this.createSession().catch((error: unknown) => {
      this.session = undefined;
      throw error;
    });
    return this.session;
  }

  private async createSession(): Promise<Session> {
    const { modelPath } = this.options;
    const loaded = await acquireModel(modelPath);
    const trained = loaded.model.trainContextSize;
    const contextSize = this.options.contextSize ?? Math.min(LOCAL_GGUF_DEFAULTS.contextSize, trained > 0 ? trained : Infinity);
    try {
      const context = await loaded.model.createContext({
        contextSize,
        threads: this.options.threads ?? LOCAL_GGUF_DEFAULTS.threads,
        sequences: 1,
      });
      const sequence = context.getSequence();
      const completion = new loaded.lib.LlamaCompletion({ contextSequence: sequence });
      return { loaded, context, sequence, completion, contextSize: context.contextSize, grammars: new Map() };
    } catch (error) {
      await loaded.release();
      throw new LocalRuntimeError(
        `could not create a ${contextSize}-token context for ${modelPath}: ${describeFailure(error, modelPath)}`,
        { ...PROVIDER, cause: error },
      );
    }
  }

  private async completeNow(
    request: ModelRequest,
    signal: AbortSignal,
    onEvent: ((event: ModelStreamEvent) => void) | undefined,
  ): Promise<ModelResponse> {
    // node-llama-cpp catches and only logs errors of its callbacks: a throwing listener stops the
    // generation here instead, and its error is what the caller gets.
    const listener = new AbortController();
    let listenerError: { error: unknown } | undefined;
    const emit = (event: ModelStreamEvent): void => {
      if (!onEvent || listenerError) return;
      try {
        onEvent(event);
      } catch (error) {
        listenerError = { error };
        listener.abort();
      }
    };
    let session: Session | undefined;
    try {
      session = await this.open();
      return await this.generate(session, request, AbortSignal.any([signal, listener.signal]), emit);
    } catch (error) {
      // A failed or stopped generation leaves the sequence's state unknown: the next request starts afresh.
      await session?.sequence.clearHistory().catch(() => undefined);
      if (listenerError) throw listenerError.error;
      throw this.asModelError(error, signal);
    }
  }

  private async generate(
    session: Session,
    request: ModelRequest,
    signal: AbortSignal,
    emit: (event: ModelStreamEvent) => void,
  ): Promise<ModelResponse> {
    const tools = request.toolChoice === 'none' ? [] : (request.tools ?? []);
    const allowAnswer = request.toolChoice !== 'required';
    const maxTokens = request.maxOutputTokens ?? this.options.maxOutputTokens ?? LOCAL_GGUF_DEFAULTS.maxOutputTokens;
    const prompt = this.fitPrompt(session, request.messages, tools.length > 0 ? { tools, allowAnswer } : undefined, maxTokens);
    let outputTokens = 0;
    const temperature = request.temperature ?? this.options.temperature;
    const generation: Generation = {
      session,
      prompt,
      emit,
      usage: () => ({ inputTokens: prompt.tokens, outputTokens }),
      options: {
        maxTokens: Math.min(maxTokens, session.contextSize - prompt.tokens),
        // The prompt was fitted to the context already; shifting would silently cut its head off.
        disableContextShift: true,
        signal,
        onToken: (tokens) => (outputTokens += tokens.length),
        ...(temperature !== undefined ? { temperature } : {}),
        ...(this.options.seed !== undefined ? { seed: this.options.seed } : {}),
      },
    };
    if (tools.length === 0) return this.writeText(generation);
    const grammar = await this.grammarFor(session, toolReplySchema(tools, allowAnswer)).catch(() =>
      // llama.cpp has limits of its own (e.g. on repetitions): arguments without a shape beat no call at all.
      this.grammarFor(session, toolReplySchema(tools, allowAnswer, true)),
    );
    return this.replyWithTools(generation, grammar, tools, request.messages);
  }

  private fitPrompt(
    session: Session,
    messages: ChatMessage[],
    tools: Parameters<typeof buildTranscript>[1],
    maxTokens: number,
  ): FittedTranscript {
    const { model } = session.loaded;
    const countTokens = (text: string): number => model.tokenize(text, false, 'trimLeadingSpace').length + 1; // + BOS
    const keepForReply = Math.min(maxTokens, Math.floor(session.contextSize / 2));
    const fitted = fitTranscript(buildTranscript(messages, tools), countTokens, session.contextSize - keepForReply);
    if (!fitted) {
      throw new ModelRequestError(
        `the system prompt, tools and last message do not fit in the local model's context of ${session.contextSize} tokens ` +
          `(${keepForReply} kept for the reply): shorten them or configure a larger context`,
        PROVIDER,
      );
    }
    return fitted;
  }

  private async writeText({ session, prompt, options, emit, usage }: Generation): Promise<ModelResponse> {
    let started = false;
    const result = await session.completion.generateCompletionWithMeta(prompt.text, {
      ...options,
      customStopTriggers: TURN_STOP_TRIGGERS,
      onTextChunk: (chunk) => {
        // The cue ends with "assistant:", so the model's first token usually brings a space along.
        const text = started ? chunk : chunk.trimStart();
        if (text === '') return;
        started = true;
        emit({ type: 'text_delta', text });
      },
    });
    const text = result.response.trimStart();
    return { text, toolCalls: [], finishReason: result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop', usage: usage() };
  }

  private async replyWithTools(
    { session, prompt, options, emit, usage }: Generation,
    grammar: LlamaGrammar,
    tools: ToolSpec[],
    messages: ChatMessage[],
  ): Promise<ModelResponse> {
    const result = await session.completion.generateCompletionWithMeta(prompt.text, { ...options, grammar });
    let reply: ToolReply | undefined;
    let finishReason: ModelResponse['finishReason'] = 'stop';
    if (result.metadata.stopReason === 'maxTokens') {
      const text = truncatedAnswer(result.response);
      if (text === undefined) {
        throw new ModelProtocolError(
          `the local model used all ${options.maxTokens} output tokens before finishing its tool call: raise maxOutputTokens`,
          PROVIDER,
        );
      }
      reply = { kind: 'answer', text };
      finishReason = 'length';
    } else {
      const parsed = tryParseJson(result.response);
      reply = parsed.ok ? readToolReply(parsed.value, tools) : undefined;
    }
    if (!reply) {
      throw new ModelProtocolError(
        `the local model's reply is not the JSON its grammar allows: ${oneLine(result.response, 120)}`,
        PROVIDER,
      );
    }
    if (reply.kind === 'answer') {
      if (reply.text !== '') emit({ type: 'text_delta', text: reply.text });
      return { text: reply.text, toolCalls: [], finishReason, usage: usage() };
    }
    const call: ToolCall = { id: nextCallId(messages), name: reply.name, arguments: reply.arguments };
    emit({ type: 'tool_call_delta', index: 0, id: call.id, name: call.name, argumentsDelta: call.arguments });
    return { text: '', toolCalls: [call], finishReason: 'tool_calls', usage: usage() };
  }

  private async grammarFor(session: Session, schema: GrammarSchema): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    const cached = session.grammars.get(key);
    if (cached) return cached;
    // The schema keeps to node-llama-cpp's subset (grammar-schema.ts), but the method's parameter type is
    // inferred from a literal schema, which one built at run time cannot satisfy. Its number rules are then
    // replaced by ones without exponents (number-rules.ts).
    const { llama } = session.loaded;
    const generated = await llama.createGrammarForJsonSchema(schema as never);
    const grammar = await llama.createGrammar({
      grammar: withPlainNumbers(generated.grammar),
      stopGenerationTriggers: generated.stopGenerationTriggers,
      trimWhitespaceSuffix: generated.trimWhitespaceSuffix,
    });
    session.grammars.set(key, grammar);
    const oldest = session.grammars.keys().next().value;
    if (session.grammars.size > GRAMMAR_CACHE_SIZE && oldest !== undefined) session.grammars.delete(oldest);
    return grammar;
  }

  private abortedError(): ModelAbortedError {
    return new ModelAbortedError(
      this.closing.signal.aborted
        ? 'the local model client was closed during the request'
        : 'the request to the local model was aborted',
      PROVIDER,
    );
  }

  private asModelError(error: unknown, signal: AbortSignal): ModelError {
    if (signal.aborted) return this.abortedError();
    if (error instanceof ModelError) return error;
    return new LocalRuntimeError(`the local model failed: ${describeFailure(error, this.options.modelPath)}`, {
      ...PROVIDER,
      cause: error,
    });
  }
}

/**
 * `local_<n>`, numbered after the highest such id already in the conversation, so ids stay unique within a
 * conversation even across clients and process restarts.
 */
function nextCallId(messages: ChatMessage[]): string {
  let highest = 0;
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      const match = /^local_(\d+)$/.exec(call.id);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
  }
  return `local_${highest + 1}`;
}
