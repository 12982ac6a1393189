import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ScriptedModelServer } from './scripted-model-server.js';

// The server's own contract, checked with plain fetch so that it does not lean on our clients.

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function dataLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
}

describe('ScriptedModelServer', () => {
  const server = new ScriptedModelServer();
  const origin = () => server.url.replace(/\/v1$/, '');

  beforeAll(async () => {
    await server.start();
  });
  afterAll(() => server.close());

  it('listens on 127.0.0.1 and gives a base URL ending in /v1', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('answers both APIs with and without the /v1 prefix', async () => {
    server.setScript([{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }]);
    const chat = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    const responses = { model: 'm', input: 'hi' };
    const answers = await Promise.all([
      post(`${server.url}/chat/completions`, chat),
      post(`${origin()}/chat/completions`, chat),
      post(`${server.url}/responses`, responses),
      post(`${origin()}/responses`, responses),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(server.requests.map((request) => request.api).sort()).toEqual([
      'chat-completions',
      'chat-completions',
      'responses',
      'responses',
    ]);
    expect(server.remainingTurns).toBe(0);
  });

  it('streams tool calls the way OpenAI does: id and name first, arguments in pieces, then finish, usage, [DONE]', async () => {
    server.setScript([{ toolCalls: [{ name: 'type_text', arguments: { text: 'hello world' }, id: 'call_t' }] }]);
    const answer = await post(`${server.url}/chat/completions`, {
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'type' }],
    });
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const text = await answer.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const chunks = dataLines(text) as {
      choices: {
        delta: { tool_calls?: { index: number; id?: string; function: { name?: string; arguments: string } }[] };
        finish_reason: string | null;
      }[];
      usage?: unknown;
    }[];
    const callDeltas = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(callDeltas[0]).toMatchObject({ index: 0, id: 'call_t', function: { name: 'type_text', arguments: '' } });
    const pieces = callDeltas.slice(1);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((piece) => piece.id === undefined && piece.function.name === undefined)).toBe(true);
    expect(pieces.map((piece) => piece.function.arguments).join('')).toBe('{"text":"hello world"}');
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual([
      'tool_calls',
    ]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
  });

  it('hands a script function the conversation in provider-neutral form', async () => {
    const seen: unknown[] = [];
    server.setScript((request) => {
      seen.push(request.messages.at(-1));
      return { text: `you said ${String(request.messages.length)} things` };
    });
    const answer = await post(`${server.url}/responses`, {
      model: 'm',
      instructions: 'be nice',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello' }] }],
    });
    expect(((await answer.json()) as { output: { content: { text: string }[] }[] }).output[0]?.content[0]?.text).toBe(
      'you said 2 things',
    );
    expect(seen).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
  });

  it('answers 500 with a clear message when the script is exhausted or fails', async () => {
    server.setScript([]);
    const exhausted = await post(`${server.url}/chat/completions`, { model: 'm', messages: [] });
    expect(exhausted.status).toBe(500);
    expect(await exhausted.json()).toMatchObject({
      error: { code: 'script_exhausted', message: expect.stringContaining('the script is exhausted') },
    });
    server.setScript(() => {
      throw new Error('no turn for this');
    });
    const failed = await post(`${server.url}/chat/completions`, { model: 'm', messages: [] });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ error: { message: expect.stringContaining('no turn for this') } });
  });

  it('sends Retry-After and the scripted error body', async () => {
    server.setScript([{ httpStatus: 429, retryAfterSeconds: 7, errorBody: { error: { message: 'slow down' } } }]);
    const answer = await post(`${server.url}/chat/completions`, { model: 'm', messages: [] });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('7');
    expect(await answer.json()).toEqual({ error: { message: 'slow down' } });
  });

  it('refuses bodies that are not JSON and paths it does not know, and lists its model', async () => {
    server.setScript([]);
    const garbage = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: 'not json' });
    expect(garbage.status).toBe(400);
    expect((await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' })).status).toBe(404);
    const models = await fetch(`${server.url}/models`);
    expect(await models.json()).toMatchObject({ data: [{ id: 'scripted-model' }] });
    expect(server.requests).toHaveLength(0);
  });

  it('drops a stream in progress when closed', async () => {
    // Far longer than Jest's timeout: if close() waited for the stream, this test would time out.
    const own = await ScriptedModelServer.start([{ text: 'one two three four', chunkDelayMs: 120_000 }]);
    const answer = await post(`${own.url}/chat/completions`, { model: 'm', stream: true, messages: [] });
    expect(answer.status).toBe(200);
    await own.close();
    await expect(answer.text()).rejects.toThrow();
    await expect(fetch(`${own.url}/models`)).rejects.toThrow();
  });
});
