import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChatMessage, ModelStreamEvent, ToolSpec } from '@lazyboy/contracts';
import { type ModelBackend } from '../credentials.js';
import { createModelClient } from '../create-model-client.js';
import {
  ModelAbortedError,
  ModelAuthError,
  ModelConnectionError,
  ModelNotFoundError,
  ModelRedirectError,
  ModelRequestError,
  ModelServerError,
  ModelTimeoutError,
} from '../errors.js';
import type { ModelHttpOptions, RetryNotice } from '../http/model-http.js';
import { scriptedBackend } from '../scripted/scripted-backend.js';
import { ScriptedModelServer } from '../scripted/scripted-model-server.js';
import { CaptureServer } from '../testing/capture-server.js';

// The behaviour both wire formats must share, each checked over real HTTP against the scripted server.

const readFileTool: ToolSpec = {
  name: 'read_file',
  description: 'Reads a text file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

describe.each(['openai-chat', 'openai-responses'] as const)('%s client against the scripted server', (provider) => {
  const api = provider === 'openai-chat' ? 'chat-completions' : 'responses';
  const server = new ScriptedModelServer();
  const quickRetries: ModelHttpOptions = { retry: { baseDelayMs: 1, maxDelayMs: 4 } };
  const client = (options: ModelHttpOptions = {}, backend: Partial<ModelBackend> = {}) =>
    createModelClient({ ...scriptedBackend(server, provider), ...backend }, { ...quickRetries, ...options });
  const hello: ChatMessage[] = [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: 'Say hello.' },
  ];

  beforeAll(async () => {
    await server.start();
  });
  afterAll(() => server.close());

  it('answers plain text, with usage, and sends what it was given', async () => {
    server.setScript([{ text: 'Hello from the script.', usage: { inputTokens: 12, outputTokens: 5 } }]);
    const response = await client().complete({ messages: hello });
    expect(response).toEqual({
      text: 'Hello from the script.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 5 },
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ api, stream: false, model: 'scripted-model', messages: hello });
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer scripted-key');
  });

  it('streams text as deltas that add up to the final text', async () => {
    server.setScript([{ text: 'One two three four.' }]);
    const events: ModelStreamEvent[] = [];
    const response = await client().complete({ messages: hello }, (event) => events.push(event));
    expect(server.requests[0]?.stream).toBe(true);
    expect(response.text).toBe('One two three four.');
    expect(response.finishReason).toBe('stop');
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((event) => event.type === 'text_delta')).toBe(true);
    expect(events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('')).toBe('One two three four.');
  });

  it('assembles two streamed tool calls whose arguments arrive in pieces', async () => {
    const first = { path: '/etc/hosts' };
    const second = { path: '/var/log/syslog', lines: 20 };
    server.setScript([
      {
        toolCalls: [
          { name: 'read_file', arguments: first, id: 'call_a' },
          { name: 'tail_file', arguments: second, id: 'call_b' },
        ],
      },
    ]);
    const events: ModelStreamEvent[] = [];
    const response = await client().complete({ messages: hello, tools: [readFileTool] }, (event) => events.push(event));
    expect(response.text).toBe('');
    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls).toEqual([
      { id: 'call_a', name: 'read_file', arguments: JSON.stringify(first) },
      { id: 'call_b', name: 'tail_file', arguments: JSON.stringify(second) },
    ]);
    for (const [index, call] of response.toolCalls.entries()) {
      const deltas = events.filter((event) => event.type === 'tool_call_delta' && event.index === index);
      expect(deltas[0]).toMatchObject({ id: call.id, name: call.name });
      const pieces = deltas.flatMap((event) =>
        event.type === 'tool_call_delta' && event.argumentsDelta ? [event.argumentsDelta] : [],
      );
      expect(pieces.length).toBeGreaterThan(1);
      expect(pieces.join('')).toBe(call.arguments);
    }
  });

  it('carries the assistant tool calls and the tool result into the next request', async () => {
    server.setScript([
      { toolCalls: [{ name: 'read_file', arguments: { path: '/etc/hostname' } }] },
      { text: 'The host is box-1.' },
    ]);
    const user: ChatMessage = { role: 'user', content: 'What is the host name?' };
    const first = await client().complete({ messages: [user], tools: [readFileTool], toolChoice: 'auto' });
    expect(first.toolCalls).toHaveLength(1);
    const call = first.toolCalls[0]!;
    const conversation: ChatMessage[] = [
      user,
      { role: 'assistant', content: null, toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: call.id, content: 'box-1' },
    ];
    const second = await client().complete({ messages: conversation, tools: [readFileTool] }, () => undefined);
    expect(second.text).toBe('The host is box-1.');
    expect(server.requests[0]?.tools).toEqual([readFileTool]);
    expect(server.requests[0]?.toolChoice).toBe('auto');
    expect(server.requests[1]?.messages).toEqual(conversation);
    expect(JSON.parse(call.arguments)).toEqual({ path: '/etc/hostname' });
  });

  it('retries a 429 after the Retry-After the provider asked for', async () => {
    server.setScript([{ httpStatus: 429, retryAfterSeconds: 0.05 }, { text: 'ok' }]);
    const notices: RetryNotice[] = [];
    const response = await client({ onRetry: (notice) => notices.push(notice) }).complete({ messages: hello });
    expect(response.text).toBe('ok');
    expect(server.requests).toHaveLength(2);
    expect(notices).toEqual([{ attempt: 1, delayMs: 50, reason: 'HTTP 429', status: 429 }]);
  });

  it('waits no longer than the cap however long Retry-After asks for', async () => {
    server.setScript([{ httpStatus: 429, retryAfterSeconds: 3600 }, { text: 'ok' }]);
    const notices: RetryNotice[] = [];
    const response = await client({ retry: { maxRetryAfterMs: 20 }, onRetry: (notice) => notices.push(notice) }).complete({
      messages: hello,
    });
    expect(response.text).toBe('ok');
    expect(notices.map((notice) => notice.delayMs)).toEqual([20]);
  });

  it('gets through three 503s in a row', async () => {
    server.setScript([{ httpStatus: 503 }, { httpStatus: 503 }, { httpStatus: 503 }, { text: 'finally' }]);
    const notices: RetryNotice[] = [];
    const response = await client({
      retry: { baseDelayMs: 1, maxDelayMs: 4 },
      onRetry: (notice) => notices.push(notice),
    }).complete({ messages: hello }, () => undefined);
    expect(response.text).toBe('finally');
    expect(server.requests).toHaveLength(4);
    expect(notices.map((notice) => [notice.attempt, notice.status])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
    ]);
  });

  it('gives up on a persistent 500 after the retry budget', async () => {
    server.setScript(() => ({ httpStatus: 500, errorBody: { error: { message: 'backend exploded' } } }));
    const failure = client().complete({ messages: hello });
    await expect(failure).rejects.toThrow(ModelServerError);
    await expect(failure).rejects.toThrow(/HTTP 500 .*backend exploded.* after 4 attempts/);
    expect(server.requests).toHaveLength(4);
  });

  it('reports a refused key without ever showing the key', async () => {
    const key = 'sk-live-0123456789abcdef';
    server.setScript((request) => ({
      httpStatus: 401,
      errorBody: {
        error: { message: `Incorrect API key provided: ${request.headers['authorization']?.slice('Bearer '.length)}` },
      },
    }));
    const error = await client({}, { apiKey: key })
      .complete({ messages: hello })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelAuthError);
    const message = (error as Error).message;
    expect(message).toContain(`the model provider refused the API key for ${provider}`);
    expect(message).toContain('HTTP 401');
    expect(message).not.toContain(key);
    expect(message).not.toMatch(/\n/);
    expect(server.requests).toHaveLength(1);
  });

  it('names the model a 404 says does not exist', async () => {
    server.setScript([{ httpStatus: 404 }]);
    const error = await client({}, { model: 'grok-99-imaginary' })
      .complete({ messages: hello })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect((error as ModelNotFoundError).model).toBe('grok-99-imaginary');
    expect((error as Error).message).toContain(`unknown model 'grok-99-imaginary' at ${server.url}`);
    expect(server.requests).toHaveLength(1);
  });

  it('recognises an unknown model in a 400 body too', async () => {
    server.setScript([
      { httpStatus: 400, errorBody: { error: { message: 'The model grok-0 does not exist or your team cannot use it.' } } },
    ]);
    await expect(client({}, { model: 'grok-0' }).complete({ messages: hello })).rejects.toThrow(ModelNotFoundError);
  });

  it('rejects other 4xx at once, with the provider message', async () => {
    server.setScript([
      { httpStatus: 400, errorBody: { error: { message: "Invalid 'temperature': at most 2.", type: 'invalid_request_error' } } },
    ]);
    const failure = client().complete({ messages: hello, temperature: 3 });
    await expect(failure).rejects.toThrow(ModelRequestError);
    await expect(failure).rejects.toThrow("Invalid 'temperature': at most 2.");
    expect(server.requests).toHaveLength(1);
  });

  it('never follows a redirect: the key reaches the base URL only, and the error says why', async () => {
    const capture = await CaptureServer.start();
    try {
      server.setScript([{ redirectTo: `${capture.url}/chat/completions` }, { redirectTo: capture.url, httpStatus: 302 }]);
      const plain = await client()
        .complete({ messages: hello })
        .catch((caught: unknown) => caught);
      expect(plain).toBeInstanceOf(ModelRedirectError);
      expect((plain as ModelRedirectError).status).toBe(307);
      expect((plain as Error).message).toMatch(
        /answered with a redirect \(HTTP 307 to http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\); redirects are not followed/,
      );
      expect((plain as Error).message).not.toContain('scripted-key');
      await expect(client().complete({ messages: hello }, () => undefined)).rejects.toThrow(ModelRedirectError);
      // Not retried, and nothing at all went where the redirects pointed.
      expect(server.requests).toHaveLength(2);
      expect(server.requests.map((request) => request.headers['authorization'])).toEqual([
        'Bearer scripted-key',
        'Bearer scripted-key',
      ]);
      expect(capture.requests).toEqual([]);
    } finally {
      await capture.close();
    }
  });

  it('times out a provider that stays silent, without retrying', async () => {
    server.setScript([{ text: 'too late', delayMs: 5_000 }]);
    const error = await client({ timeoutMs: 100 })
      .complete({ messages: hello })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect((error as ModelTimeoutError).timeoutMs).toBe(100);
    expect((error as Error).message).toContain('did not answer within 100 ms');
    expect(server.requests).toHaveLength(1);
  });

  it('times out a stream that stalls between events', async () => {
    server.setScript([{ text: 'a b c', chunkDelayMs: 5_000 }]);
    await expect(client({ timeoutMs: 100 }).complete({ messages: hello }, () => undefined)).rejects.toThrow(ModelTimeoutError);
  });

  it('lets a stream outlast the timeout while events keep coming', async () => {
    // Ten or more events 50 ms apart: the whole stream takes longer than the 300 ms timeout.
    server.setScript([{ text: 'one two three four five six', chunkDelayMs: 50 }]);
    const response = await client({ timeoutMs: 300 }).complete({ messages: hello }, () => undefined);
    expect(response.text).toBe('one two three four five six');
  });

  it('stops when the caller aborts mid-request', async () => {
    const controller = new AbortController();
    server.setScript(() => {
      controller.abort();
      return { text: 'too late', delayMs: 5_000 };
    });
    await expect(client().complete({ messages: hello, signal: controller.signal })).rejects.toThrow(ModelAbortedError);
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing for a signal that is already aborted', async () => {
    server.setScript([{ text: 'unused' }]);
    await expect(client().complete({ messages: hello, signal: AbortSignal.abort() })).rejects.toThrow(ModelAbortedError);
    expect(server.requests).toHaveLength(0);
  });

  it('stops waiting for a retry when the caller aborts', async () => {
    const controller = new AbortController();
    server.setScript([{ httpStatus: 503, retryAfterSeconds: 30 }, { text: 'unused' }]);
    const failure = client({ onRetry: () => controller.abort() }).complete({ messages: hello, signal: controller.signal });
    await expect(failure).rejects.toThrow(ModelAbortedError);
    expect(server.requests).toHaveLength(1);
  });

  it('returns an empty answer as empty text and no tool calls, streamed or not', async () => {
    server.setScript([{ empty: true }, { empty: true }]);
    const events: ModelStreamEvent[] = [];
    const plain = await client().complete({ messages: hello });
    const streamed = await client().complete({ messages: hello }, (event) => events.push(event));
    for (const response of [plain, streamed]) {
      expect(response).toMatchObject({ text: '', toolCalls: [], finishReason: 'stop' });
    }
    expect(events).toEqual([]);
  });

  it('reports an error the provider sends inside the stream, after the text so far', async () => {
    server.setScript([{ text: 'Partial answer', streamError: 'the GPU fell over' }]);
    const events: ModelStreamEvent[] = [];
    const failure = client().complete({ messages: hello }, (event) => events.push(event));
    await expect(failure).rejects.toThrow(ModelServerError);
    await expect(failure).rejects.toThrow('the GPU fell over');
    expect(events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('')).toBe('Partial answer');
    expect(server.requests).toHaveLength(1);
  });

  it('maps a length cut-off, streamed or not', async () => {
    server.setScript([
      { text: 'Cut', finishReason: 'length' },
      { text: 'Cut', finishReason: 'length' },
    ]);
    expect((await client().complete({ messages: hello })).finishReason).toBe('length');
    expect((await client().complete({ messages: hello }, () => undefined)).finishReason).toBe('length');
  });

  it('shows a test that the script ran out', async () => {
    server.setScript([]);
    await expect(client({ retry: { maxRetries: 0 } }).complete({ messages: hello })).rejects.toThrow(/script is exhausted/);
  });

  it('reports an unreachable provider after retrying', async () => {
    const gone = await ScriptedModelServer.start();
    const url = gone.url;
    await gone.close();
    const notices: RetryNotice[] = [];
    const error = await client({ onRetry: (notice) => notices.push(notice) }, { baseUrl: url })
      .complete({ messages: hello })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelConnectionError);
    expect((error as Error).message).toMatch(/could not reach .*ECONNREFUSED.* after 4 attempts/);
    expect(notices).toHaveLength(3);
  });
});
