import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChatMessage, ModelStreamEvent } from '@lazyboy/contracts';
import { ModelProtocolError, ModelRateLimitError, ModelServerError } from '../errors.js';
import { ScriptedModelServer } from '../scripted/scripted-model-server.js';
import { ChatCompletionsClient } from './chat-completions.js';
import { ChatCompletionsStream } from './chat-completions-stream.js';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('ChatCompletionsClient on the wire', () => {
  const server = new ScriptedModelServer();
  const client = (options: { temperature?: number } = {}) =>
    new ChatCompletionsClient({ baseUrl: server.url, model: 'local-llama', retry: { maxRetries: 0 }, ...options });

  beforeAll(async () => {
    await server.start();
  });
  afterAll(() => server.close());

  it('translates messages, images, tools and options to the Chat Completions format', async () => {
    server.setScript([{ text: 'done' }]);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You operate a desktop.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is on this screen?' },
          { type: 'image', mimeType: 'image/png', dataBase64: PIXEL },
        ],
      },
      { role: 'assistant', content: 'Taking a screenshot.', toolCalls: [{ id: 'call_1', name: 'screenshot', arguments: '{}' }] },
      {
        role: 'tool',
        toolCallId: 'call_1',
        content: [
          { type: 'text', text: 'Screenshot taken.' },
          { type: 'image', mimeType: 'image/jpeg', dataBase64: 'AAAA' },
        ],
      },
    ];
    await client().complete({
      messages,
      tools: [{ name: 'screenshot', description: 'Captures the screen.', parameters: { type: 'object', properties: {} } }],
      toolChoice: 'required',
      temperature: 0.2,
      maxOutputTokens: 256,
    });
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.body).toEqual({
      model: 'local-llama',
      messages: [
        { role: 'system', content: 'You operate a desktop.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is on this screen?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
          ],
        },
        {
          role: 'assistant',
          content: 'Taking a screenshot.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }],
        },
        // Images cannot ride in a tool message: the text stays, the image follows as the user's.
        { role: 'tool', tool_call_id: 'call_1', content: 'Screenshot taken.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Image from the result of tool call call_1:' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } },
          ],
        },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'screenshot', description: 'Captures the screen.', parameters: { type: 'object', properties: {} } },
        },
      ],
      tool_choice: 'required',
      temperature: 0.2,
      max_tokens: 256,
    });
  });

  it('puts the images of consecutive tool results after all of them', async () => {
    server.setScript([{ text: 'done' }]);
    const image = { type: 'image', mimeType: 'image/png', dataBase64: PIXEL } as const;
    await client().complete({
      messages: [
        { role: 'user', content: 'Look at both screens.' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: 'a', name: 'screenshot', arguments: '{"screen":1}' },
            { id: 'b', name: 'screenshot', arguments: '{"screen":2}' },
          ],
        },
        { role: 'tool', toolCallId: 'a', content: [image] },
        { role: 'tool', toolCallId: 'b', content: [image] },
      ],
    });
    const roles = (server.requests[0]?.body['messages'] as { role: string }[]).map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(server.requests[0]?.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Image from the result of tool call a:' },
        image,
        { type: 'text', text: 'Image from the result of tool call b:' },
        image,
      ],
    });
  });

  it('asks for usage in streams, and sends the default temperature and no tools when there are none', async () => {
    server.setScript([{ text: 'streamed', usage: { inputTokens: 3, outputTokens: 1 } }]);
    const response = await client({ temperature: 0.7 }).complete(
      { messages: [{ role: 'user', content: 'hi' }], toolChoice: 'auto' },
      () => undefined,
    );
    expect(response.usage).toEqual({ inputTokens: 3, outputTokens: 1 });
    const body = server.requests[0]?.body ?? {};
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true }, temperature: 0.7 });
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
  });

  it('gives tool calls without ids ids of their own', async () => {
    server.setScript([
      {
        httpStatus: 200,
        errorBody: {
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [{ type: 'function', function: { name: 'ls', arguments: { dir: '/' } } }],
              },
              finish_reason: 'stop',
            },
          ],
        },
      },
    ]);
    const response = await client().complete({ messages: [{ role: 'user', content: 'list' }] });
    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls).toEqual([{ id: expect.stringMatching(/^call_\w+$/), name: 'ls', arguments: '{"dir":"/"}' }]);
  });

  it('treats a 200 carrying an error object as the error it reports', async () => {
    server.setScript([{ httpStatus: 200, errorBody: { error: { message: 'model is overloaded', type: 'server_error' } } }]);
    await expect(client().complete({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(ModelServerError);
    server.setScript([{ httpStatus: 200, errorBody: { error: { message: 'model is overloaded' } } }]);
    await expect(client().complete({ messages: [{ role: 'user', content: 'hi' }] }, () => undefined)).rejects.toThrow(
      'model is overloaded',
    );
  });

  it('refuses an answer that is not JSON', async () => {
    server.setScript([{ httpStatus: 200, errorBody: '<html>gateway</html>' }]);
    await expect(client().complete({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(ModelProtocolError);
  });

  it('never quotes the key of a server that echoes the request headers back', async () => {
    const apiKey = 'sk-echoed-0123456789abcdefghijklmnopqrstuvwxyz';
    const echoing = new ChatCompletionsClient({ baseUrl: server.url, model: 'local-llama', apiKey, retry: { maxRetries: 0 } });
    // The key starts inside the first 120 characters and ends past them: shortening first would leave most of it.
    const echo = (request: { headers: Record<string, string> }) =>
      `upstream trouble; request was: ${'x'.repeat(40)} authorization: ${request.headers['authorization'] ?? ''}`;
    const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }];
    const failures: string[] = [];
    for (const status of [200, 500, 401]) {
      server.setScript((request) => ({ httpStatus: status, errorBody: echo(request) }));
      failures.push(
        await echoing.complete({ messages }).then(
          () => 'answered',
          (error: unknown) => String(error instanceof Error ? error.message : error),
        ),
      );
    }
    // A stream chunk that is no JSON, as a broken proxy sends it.
    const stream = new ChatCompletionsStream(
      { provider: 'openai-chat', baseUrl: server.url, model: 'm', apiKey },
      () => undefined,
    );
    try {
      stream.accept({ event: 'message', data: echo({ headers: { authorization: `Bearer ${apiKey}` } }) });
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
    expect(failures).toHaveLength(4);
    for (const message of failures) {
      expect(message).toContain('upstream trouble');
      expect(message).not.toContain(apiKey.slice(0, 12));
    }
  });

  it('describes itself without the key', () => {
    const xai = new ChatCompletionsClient({ provider: 'xai', baseUrl: server.url, model: 'grok-test', apiKey: 'xai-secret' });
    expect(xai.description).toBe('xai:grok-test');
  });

  it('announces id and name once per tool call, in its first delta', async () => {
    server.setScript([{ toolCalls: [{ name: 'click', arguments: { x: 1, y: 2 }, id: 'c1' }] }]);
    const events: ModelStreamEvent[] = [];
    await client().complete({ messages: [{ role: 'user', content: 'click' }] }, (event) => events.push(event));
    const withName = events.filter((event) => event.type === 'tool_call_delta' && event.name !== undefined);
    expect(withName).toEqual([{ type: 'tool_call_delta', index: 0, id: 'c1', name: 'click' }]);
  });

  it('does not retry a 429 that says the quota is gone', async () => {
    server.setScript([
      { httpStatus: 429, errorBody: { error: { message: 'You exceeded your current quota.', code: 'insufficient_quota' } } },
      { text: 'unused' },
    ]);
    const failure = client().complete({ messages: [{ role: 'user', content: 'hi' }] });
    await expect(failure).rejects.toThrow(ModelRateLimitError);
    await expect(failure).rejects.toThrow(/no quota left.*You exceeded your current quota/);
    expect(server.requests).toHaveLength(1);
  });

  it('gives up on a persistent 429 with the wait the provider last asked for', async () => {
    server.setScript(() => ({ httpStatus: 429, retryAfterSeconds: 0.01 }));
    const retrying = new ChatCompletionsClient({ baseUrl: server.url, model: 'local-llama', retry: { maxRetries: 2 } });
    const error = await retrying.complete({ messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelRateLimitError);
    expect((error as ModelRateLimitError).retryAfterMs).toBe(10);
    expect((error as Error).message).toMatch(/rate limiting requests .* after 3 attempts$/);
    expect(server.requests).toHaveLength(3);
  });
});
