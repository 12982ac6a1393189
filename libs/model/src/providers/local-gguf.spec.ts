import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChatMessage, ModelClient, ModelResponse, ModelStreamEvent, ToolSpec } from '@lazyboy/contracts';
import { z } from 'zod';
import { resolveModelBackend } from '../credentials.js';
import { closeModelClient, createModelClient, type CreateModelClientOptions } from '../create-model-client.js';
import { LocalRuntimeError, ModelAbortedError, ModelFileError, ModelNotConfiguredError, ModelRequestError } from '../errors.js';
import { writeTinyGguf } from '../testing/tiny-gguf.js';
import { LocalGgufClient } from './local-gguf.js';

// Runs the real llama.cpp (CPU, one thread) on a tiny generated GGUF. The model knows nothing, so what is
// checked is what the provider guarantees whatever the model: the shape of replies, the grammar, errors.

const argumentSchemas = {
  lookup: z.object({ query: z.string() }).strict(),
  report_done: z.object({ summary: z.string() }).strict(),
};
const tools: ToolSpec[] = [
  { name: 'lookup', description: 'Looks a word up.', parameters: z.toJSONSchema(argumentSchemas.lookup) },
  { name: 'report_done', description: 'Ends the task.', parameters: z.toJSONSchema(argumentSchemas.report_done) },
];
const ask: ChatMessage[] = [
  { role: 'system', content: 'You are a test assistant.' },
  { role: 'user', content: 'Look up the word "gguf", then report.' },
];
// The context size is left to its default: the smaller of 4096 and the 1024 tokens the file claims it was
// trained for. The tiny vocabulary spends about one token per character, so 1024 is not much.
const TRAINED_CONTEXT = 1024;
const tuning: CreateModelClientOptions = { localGguf: { maxOutputTokens: 96 } };

function textOf(events: ModelStreamEvent[]): string {
  return events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');
}

/** Checks a reply to a tool request; returns the validated arguments of its one call. */
function expectOneValidCall(response: ModelResponse, events: ModelStreamEvent[]): unknown {
  expect(response.finishReason).toBe('tool_calls');
  expect(response.toolCalls).toHaveLength(1);
  const [call] = response.toolCalls;
  if (!call) throw new Error('no call');
  expect(call.id).toMatch(/^local_\d+$/);
  expect(Object.keys(argumentSchemas)).toContain(call.name);
  const args = argumentSchemas[call.name as keyof typeof argumentSchemas].parse(JSON.parse(call.arguments));
  expect(events).toEqual([{ type: 'tool_call_delta', index: 0, id: call.id, name: call.name, argumentsDelta: call.arguments }]);
  return args;
}

describe('local-gguf client on a tiny GGUF', () => {
  let dir: string;
  let modelPath: string;
  let client: ModelClient;
  const extraClients: ModelClient[] = [];
  const newClient = (options: CreateModelClientOptions = tuning, file = modelPath): ModelClient => {
    const created = createModelClient({ provider: 'local-gguf', baseUrl: '', model: 'tiny', modelPath: file }, options);
    extraClients.push(created);
    return created;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'local-gguf-'));
    modelPath = path.join(dir, 'tiny.gguf');
    await writeTinyGguf(modelPath, { contextLength: TRAINED_CONTEXT });
    client = createModelClient({ provider: 'local-gguf', baseUrl: '', model: 'tiny', modelPath }, tuning);
  });

  afterAll(async () => {
    // Closing the last client frees the model and the llama.cpp runtime, so Jest can exit by itself.
    await Promise.all([client, ...extraClients].map((each) => closeModelClient(each)));
    await rm(dir, { recursive: true, force: true });
  });

  it('is a LocalGgufClient described by its model name', () => {
    expect(client).toBeInstanceOf(LocalGgufClient);
    expect(client.description).toBe('local-gguf:tiny');
  });

  it('streams a plain completion as text deltas that add up to the text', async () => {
    const events: ModelStreamEvent[] = [];
    const response = await client.complete({ messages: ask, maxOutputTokens: 24 }, (event) => events.push(event));
    expect(response.toolCalls).toEqual([]);
    expect(response.text.length).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(response.finishReason);
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((event) => event.type === 'text_delta')).toBe(true);
    expect(textOf(events)).toBe(response.text);
    expect(response.usage?.inputTokens).toBeGreaterThan(10);
    expect(response.usage?.outputTokens).toBeGreaterThan(0);
    expect(response.usage?.outputTokens).toBeLessThanOrEqual(24);
  });

  it('answers with text when tools are offered with toolChoice none', async () => {
    const response = await client.complete({ messages: ask, tools, toolChoice: 'none', maxOutputTokens: 8 });
    expect(response.toolCalls).toEqual([]);
    expect(response.text.length).toBeGreaterThan(0);
  });

  it('calls exactly one offered tool with schema-valid arguments, for every seed and temperature', async () => {
    const outcomes: unknown[] = [];
    for (const seed of [1, 2, 3]) {
      const seeded = newClient({ localGguf: { ...tuning.localGguf, seed } });
      for (const temperature of [0, 0.7, 1.2]) {
        const events: ModelStreamEvent[] = [];
        const response = await seeded.complete({ messages: ask, tools, toolChoice: 'required', temperature }, (event) =>
          events.push(event),
        );
        outcomes.push(expectOneValidCall(response, events));
      }
    }
    expect(outcomes).toHaveLength(9);
  });

  it('either calls a tool or answers when the choice is the model’s', async () => {
    for (const temperature of [0, 1]) {
      const response = await client.complete({ messages: ask, tools, toolChoice: 'auto', temperature });
      if (response.toolCalls.length > 0) {
        expect(response.finishReason).toBe('tool_calls');
        expect(response.toolCalls).toHaveLength(1);
      } else {
        expect(['stop', 'length']).toContain(response.finishReason);
      }
    }
  });

  it('numbers calls after those already in the conversation and shows the model their results', async () => {
    const conversation: ChatMessage[] = [
      ...ask,
      { role: 'assistant', content: null, toolCalls: [{ id: 'local_7', name: 'lookup', arguments: '{"query":"gguf"}' }] },
      { role: 'tool', toolCallId: 'local_7', content: 'GGUF: a file format for llama.cpp models.' },
    ];
    const response = await client.complete({ messages: conversation, tools, toolChoice: 'required' });
    expect(response.toolCalls[0]?.id).toBe('local_8');
  });

  it('keeps arguments valid for a richer schema: optional, enum, array, nested object and record properties', async () => {
    const schema = z
      .object({
        path: z.string().min(1),
        mode: z.enum(['read', 'write']),
        lines: z.number().int().optional(),
        tags: z.array(z.string()).max(3),
        owner: z.object({ name: z.string(), admin: z.boolean() }).optional(),
        labels: z.record(z.string(), z.string()),
        note: z.string().nullable(),
      })
      .strict();
    const fileTool: ToolSpec = { name: 'touch_file', description: 'Touches a file.', parameters: z.toJSONSchema(schema) };
    for (const temperature of [0, 1]) {
      const response = await client.complete({
        messages: ask,
        tools: [fileTool],
        toolChoice: 'required',
        temperature,
        maxOutputTokens: 200,
      });
      expect(response.toolCalls[0]?.name).toBe('touch_file');
      expect(() => schema.parse(JSON.parse(response.toolCalls[0]?.arguments ?? ''))).not.toThrow();
    }
  });

  it('serialises a request made while another is running: both succeed, one after the other', async () => {
    const order: string[] = [];
    const [first, second] = await Promise.all([
      client.complete({ messages: ask, maxOutputTokens: 12 }, () => order.push('first')),
      client.complete({ messages: ask, tools, toolChoice: 'required' }, () => order.push('second')),
    ]);
    expect(first.text.length).toBeGreaterThan(0);
    expect(second.toolCalls).toHaveLength(1);
    expect(order.indexOf('second')).toBe(order.lastIndexOf('first') + 1);
  });

  it('leaves out the oldest turns when the conversation outgrows the context', async () => {
    const long: ChatMessage[] = [...ask];
    for (let turn = 0; turn < 40; turn++) {
      long.push(
        { role: 'assistant', content: `Step ${turn}: still looking.` },
        { role: 'user', content: `Keep going (${turn}).` },
      );
    }
    const response = await client.complete({ messages: long, tools, toolChoice: 'required' });
    expect(response.toolCalls).toHaveLength(1);
    expect(response.usage?.inputTokens).toBeLessThanOrEqual(TRAINED_CONTEXT);
  });

  it('refuses a last message that cannot fit in the context, in one line', async () => {
    const huge: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(3_000) }];
    const attempt = client.complete({ messages: huge });
    await expect(attempt).rejects.toThrow(ModelRequestError);
    await expect(attempt).rejects.toThrow(/^the system prompt, tools and last message do not fit in .* 1024 tokens[^\n]*$/);
  });

  it('reports a missing GGUF file with its path, in one line', async () => {
    const missing = path.join(dir, 'missing.gguf');
    const attempt = newClient(tuning, missing).complete({ messages: ask });
    await expect(attempt).rejects.toThrow(ModelFileError);
    await expect(attempt).rejects.toThrow(ModelNotConfiguredError);
    await expect(attempt).rejects.toMatchObject({ message: `the GGUF file ${missing} does not exist`, modelPath: missing });
  });

  it('reports a file that is not a GGUF model', async () => {
    const notGguf = path.join(dir, 'notes.gguf');
    await writeFile(notGguf, 'just some text, not weights\n');
    const attempt = newClient(tuning, notGguf).complete({ messages: ask });
    await expect(attempt).rejects.toThrow(ModelFileError);
    await expect(attempt).rejects.toThrow(`the file ${notGguf} is not a GGUF model: it does not start with the GGUF signature`);
    await expect(newClient(tuning, dir).complete({ messages: ask })).rejects.toThrow(`the GGUF path ${dir} is a directory`);
  });

  it('reports a GGUF file llama.cpp cannot load with llama.cpp’s reason', async () => {
    const alien = path.join(dir, 'alien.gguf');
    await writeTinyGguf(alien, { architecture: 'alien' });
    const attempt = newClient(tuning, alien).complete({ messages: ask });
    await expect(attempt).rejects.toThrow(ModelFileError);
    await expect(attempt).rejects.toMatchObject({
      message: `llama.cpp could not load the GGUF file ${alien}: unknown model architecture: 'alien'`,
    });
  });

  it('stops on an aborted signal, before or during generation, and serves the next request', async () => {
    await expect(client.complete({ messages: ask, signal: AbortSignal.abort() })).rejects.toThrow(ModelAbortedError);

    const controller = new AbortController();
    const events: ModelStreamEvent[] = [];
    const attempt = client.complete({ messages: ask, maxOutputTokens: 400, signal: controller.signal }, (event) => {
      events.push(event);
      controller.abort();
    });
    await expect(attempt).rejects.toThrow(ModelAbortedError);
    await expect(attempt).rejects.toMatchObject({ message: 'the request to the local model was aborted' });
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThan(400);

    const after = await client.complete({ messages: ask, tools, toolChoice: 'required' });
    expect(after.toolCalls).toHaveLength(1);
  });

  it('hands the caller the error of a listener that throws', async () => {
    const failure = new Error('listener failed');
    const attempt = client.complete({ messages: ask, maxOutputTokens: 50 }, () => {
      throw failure;
    });
    await expect(attempt).rejects.toBe(failure);
  });

  it('is chosen by LAZYBOY_MODEL_PROVIDER and LAZYBOY_MODEL_PATH', async () => {
    const backend = resolveModelBackend({ env: { LAZYBOY_MODEL_PROVIDER: 'local-gguf', LAZYBOY_MODEL_PATH: modelPath } });
    expect(backend).toMatchObject({ provider: 'local-gguf', baseUrl: '', model: 'tiny', modelPath, source: 'env' });
    const fromEnv = newClient(tuning, backend.modelPath);
    const response = await fromEnv.complete({ messages: ask, tools, toolChoice: 'required' });
    expect(response.toolCalls).toHaveLength(1);
  });

  it('refuses requests once closed', async () => {
    const closing = newClient();
    await closing.complete({ messages: ask, maxOutputTokens: 4 });
    await closeModelClient(closing);
    await closeModelClient(closing);
    await expect(closing.complete({ messages: ask })).rejects.toThrow(LocalRuntimeError);
  });
});
