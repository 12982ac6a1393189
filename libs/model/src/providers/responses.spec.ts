import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChatMessage, ModelStreamEvent } from '@lazyboy/contracts';
import { ModelRateLimitError, ModelServerError } from '../errors.js';
import { ScriptedModelServer } from '../scripted/scripted-model-server.js';
import { ResponsesClient } from './responses.js';

describe('ResponsesClient on the wire', () => {
  const server = new ScriptedModelServer();
  const client = () => new ResponsesClient({ baseUrl: server.url, model: 'gpt-test', apiKey: 'k', retry: { maxRetries: 0 } });

  beforeAll(async () => {
    await server.start();
  });
  afterAll(() => server.close());

  it('translates messages, images, tools and options to the Responses format', async () => {
    server.setScript([{ text: 'done' }]);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You operate a desktop.' },
      { role: 'system', content: 'Be careful.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Open the file.' },
          { type: 'image', mimeType: 'image/png', dataBase64: 'QUJD' },
        ],
      },
      { role: 'assistant', content: 'Opening it.', toolCalls: [{ id: 'call_9', name: 'open', arguments: '{"path":"/a"}' }] },
      {
        role: 'tool',
        toolCallId: 'call_9',
        content: [
          { type: 'text', text: 'Opened.' },
          { type: 'image', mimeType: 'image/png', dataBase64: 'REVG' },
        ],
      },
      { role: 'system', content: 'Ten rounds left.' },
    ];
    await client().complete({
      messages,
      tools: [
        { name: 'open', description: 'Opens a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
      ],
      toolChoice: 'auto',
      temperature: 0,
      maxOutputTokens: 100,
    });
    expect(server.requests[0]?.path).toBe('/v1/responses');
    expect(server.requests[0]?.body).toEqual({
      model: 'gpt-test',
      instructions: 'You operate a desktop.\n\nBe careful.',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Open the file.' },
            { type: 'input_image', image_url: 'data:image/png;base64,QUJD' },
          ],
        },
        { role: 'assistant', content: 'Opening it.' },
        { type: 'function_call', call_id: 'call_9', name: 'open', arguments: '{"path":"/a"}' },
        { type: 'function_call_output', call_id: 'call_9', output: 'Opened.' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Image from the result of tool call call_9:' },
            { type: 'input_image', image_url: 'data:image/png;base64,REVG' },
          ],
        },
        { role: 'system', content: 'Ten rounds left.' },
      ],
      tools: [
        {
          type: 'function',
          name: 'open',
          description: 'Opens a file.',
          parameters: { type: 'object', properties: { path: { type: 'string' } } },
          strict: false,
        },
      ],
      tool_choice: 'auto',
      temperature: 0,
      max_output_tokens: 100,
      store: false,
    });
  });

  it('numbers tool calls among calls only, whatever their output position', async () => {
    server.setScript([{ text: 'Let me look.', toolCalls: [{ name: 'ls', arguments: { dir: '/tmp' }, id: 'c1' }] }]);
    const events: ModelStreamEvent[] = [];
    const response = await client().complete({ messages: [{ role: 'user', content: 'list' }] }, (event) => events.push(event));
    expect(response).toMatchObject({ text: 'Let me look.', toolCalls: [{ id: 'c1', name: 'ls', arguments: '{"dir":"/tmp"}' }] });
    // The text message is output item 0 and the call item 1; the call is still tool call 0.
    const callEvents = events.filter((event) => event.type === 'tool_call_delta');
    expect(callEvents.length).toBeGreaterThan(1);
    expect(callEvents.every((event) => event.type === 'tool_call_delta' && event.index === 0)).toBe(true);
  });

  it('reports a failed response that arrives with status 200', async () => {
    server.setScript([
      {
        httpStatus: 200,
        errorBody: {
          id: 'r',
          object: 'response',
          status: 'failed',
          output: [],
          error: { code: 'server_error', message: 'shard down' },
        },
      },
    ]);
    const failure = client().complete({ messages: [{ role: 'user', content: 'hi' }] });
    await expect(failure).rejects.toThrow(ModelServerError);
    await expect(failure).rejects.toThrow('shard down');
  });

  it('reports a rate limit sent as a stream error event', async () => {
    const stream = [
      'event: response.created\ndata: {"type":"response.created","response":{"id":"r","status":"in_progress","output":[]}}\n\n',
      'event: error\ndata: {"type":"error","code":"rate_limit_exceeded","message":"Slow down."}\n\n',
    ].join('');
    // A raw stream needs its own little server: the scripted one only emits well-formed endings.
    const raw = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(stream);
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const address = raw.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const rawClient = new ResponsesClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'gpt-test', apiKey: 'k' });
      const failure = rawClient.complete({ messages: [{ role: 'user', content: 'hi' }] }, () => undefined);
      await expect(failure).rejects.toThrow(ModelRateLimitError);
      await expect(failure).rejects.toThrow('Slow down.');
    } finally {
      raw.closeAllConnections();
      await new Promise((resolve) => raw.close(resolve));
    }
  });
});
