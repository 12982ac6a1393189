import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkFailureOf, findLocalModelServers, listModels, testModel } from './endpoint-checks.js';
import { ModelEndpointPolicy } from './http/endpoint-policy.js';
import { ScriptedModelServer } from './scripted/scripted-model-server.js';
import { CaptureServer } from './testing/capture-server.js';

/** A loopback port nothing listens on: one a server had a moment ago. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Answers every request with `status`, `body` and `headers`. */
async function fixedServer(status: number, body: string, headers: Record<string, string> = {}) {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('model endpoint checks', () => {
  const keyed = new ScriptedModelServer({ models: ['alpha', 'beta'], apiKey: 'sk-right', script: () => ({ text: 'OK' }) });
  const open = new ScriptedModelServer({ script: () => ({ text: ' OK \n' }) });
  let capture: CaptureServer;

  beforeAll(async () => {
    await Promise.all([keyed.start(), open.start()]);
    capture = await CaptureServer.start();
  });
  afterAll(async () => {
    await Promise.all([keyed.close(), open.close(), capture.close()]);
  });

  it('lists the models of /v1/models with the key, and answers the provider’s 401 text without one', async () => {
    expect(await listModels({ provider: 'openai-chat', baseUrl: keyed.url, apiKey: 'sk-right' })).toEqual(['alpha', 'beta']);
    expect(keyed.modelListRequests.at(-1)?.headers['authorization']).toBe('Bearer sk-right');

    const refused = checkFailureOf(await listModels({ provider: 'openai-chat', baseUrl: keyed.url }).catch((e: unknown) => e));
    expect(refused).toEqual({
      code: 'model_key_refused',
      status: 401,
      message: expect.stringContaining('HTTP 401'),
      providerMessage: 'Incorrect API key provided.',
    });
    expect(keyed.modelListRequests.at(-1)?.headers['authorization']).toBeUndefined();
  });

  it('tells a server without a model list, a broken answer, a redirect and a closed port apart', async () => {
    const failure = async (baseUrl: string) =>
      checkFailureOf(await listModels({ provider: 'openai-chat', baseUrl }, { timeoutMs: 2_000 }).catch((e: unknown) => e));
    expect(await failure(capture.url)).toMatchObject({
      code: 'model_request_rejected',
      status: 404,
      providerMessage: 'capture server: nothing here',
    });

    const notAList = await fixedServer(200, JSON.stringify({ hello: 'world' }));
    const redirect = await fixedServer(302, '', { location: `${capture.url}/models` });
    try {
      expect(await failure(notAList.url)).toMatchObject({ code: 'model_bad_answer', status: null });
      expect(await failure(redirect.url)).toMatchObject({ code: 'model_redirect', status: 302 });
      expect(capture.requests).toHaveLength(1);
    } finally {
      await Promise.all([notAList.close(), redirect.close()]);
    }
    expect(await failure(`http://127.0.0.1:${await closedPort()}/v1`)).toMatchObject({
      code: 'model_unreachable',
      status: null,
      providerMessage: null,
    });
  });

  it('holds the list to the endpoint policy before connecting', async () => {
    const seen = open.modelListRequests.length;
    const error = await listModels(
      { provider: 'openai-chat', baseUrl: open.url },
      { endpointPolicy: new ModelEndpointPolicy({ allowLoopback: false }) },
    ).catch((e: unknown) => e);
    expect(checkFailureOf(error)).toMatchObject({ code: 'model_endpoint_refused', status: null });
    expect(open.modelListRequests).toHaveLength(seen);
  });

  it('tests a model with one small request, and reports a refused key with the provider’s words', async () => {
    expect(await testModel({ provider: 'openai-chat', baseUrl: open.url, model: 'm' })).toEqual({ reply: 'OK' });
    const request = open.requests.at(-1)!;
    expect(request.stream).toBe(false);
    expect(request.messages).toHaveLength(1);

    const error = await testModel({ provider: 'openai-chat', baseUrl: keyed.url, model: 'm', apiKey: 'sk-wrong' }).catch(
      (e: unknown) => e,
    );
    expect(checkFailureOf(error)).toMatchObject({
      code: 'model_key_refused',
      status: 401,
      providerMessage: 'Incorrect API key provided.',
    });
    // A hosted provider without a key: refused before any request.
    const missing = await testModel({ provider: 'xai', baseUrl: 'https://api.x.ai/v1', model: 'grok' }).catch((e: unknown) => e);
    expect(checkFailureOf(missing)).toMatchObject({ code: 'model_key_missing', status: null });
  });

  it('finds the local servers that answer with a model list, and leaves out the rest', async () => {
    const found = await findLocalModelServers([
      { kind: 'ollama', baseUrl: open.url },
      { kind: 'llama.cpp', baseUrl: capture.url },
      { kind: 'vllm', baseUrl: `http://127.0.0.1:${await closedPort()}/v1` },
    ]);
    expect(found).toEqual([{ kind: 'ollama', baseUrl: open.url, provider: 'openai-chat', models: ['scripted-model'] }]);
  });
});
