import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkFailureOf, listModels, testModel } from '../endpoint-checks.js';
import { ModelError } from '../errors.js';
import { XAI_DEFAULT_BASE_URL } from '../provider-defaults.js';
import { ChatCompletionsClient } from '../providers/chat-completions.js';
import { assertApiKey } from '../providers/client-options.js';
import { concealAddress, endpointLabel } from './endpoint.js';

// An endpoint with a label (the host's own, shown to a workspace) is named by it in every message, and its
// address appears nowhere: not in our words, not in Node's network cause, not in the provider's own text.

const LABEL = "the host's model server";

interface Fixed {
  url: string;
  host: string;
  close(): Promise<void>;
}

/** Answers every request with `status` and `body(url)`; `status` 0: never answers. */
async function fixedServer(status: number, body: (url: string) => string, headers: Record<string, string> = {}) {
  const held: http.ServerResponse[] = [];
  let url = '';
  const server = http.createServer((req, res) => {
    req.resume();
    if (status === 0) {
      held.push(res);
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body(url));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}/v1`;
  const fixed: Fixed = {
    url,
    host: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.close(() => resolve());
      }),
  };
  return fixed;
}

async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The ModelError a one-attempt request to `baseUrl` ends with. */
async function failureOf(baseUrl: string, label: string | undefined, timeoutMs = 5_000): Promise<ModelError> {
  const client = new ChatCompletionsClient({
    baseUrl,
    model: 'm',
    retry: { maxRetries: 0 },
    timeoutMs,
    ...(label !== undefined ? { label } : {}),
  });
  const error = await client.complete({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

function expectConcealed(error: ModelError, server: { url: string; host: string }): void {
  expect(error.message).toContain(LABEL);
  for (const text of [error.message, error.providerMessage ?? '']) {
    expect(text).not.toContain(server.host);
    expect(text).not.toContain('127.0.0.1');
  }
}

describe('a labelled model endpoint', () => {
  let failing: Fixed;
  let unknown: Fixed;
  let silent: Fixed;
  let redirecting: Fixed;

  beforeAll(async () => {
    // Each echoes its own address in its error text, as proxies and some servers do.
    failing = await fixedServer(500, (url) => JSON.stringify({ error: { message: `upstream ${url} is down` } }));
    unknown = await fixedServer(404, (url) => JSON.stringify({ error: { message: `no model m at ${url}` } }));
    silent = await fixedServer(0, () => '');
    redirecting = await fixedServer(307, () => '', { location: '/elsewhere/v1' });
  });
  afterAll(async () => {
    await Promise.all([failing.close(), unknown.close(), silent.close(), redirecting.close()]);
  });

  it('is named by its label, else by its URL', () => {
    expect(endpointLabel({ baseUrl: 'http://user:pw@10.0.0.5:8000/v1?x=1' })).toBe('http://10.0.0.5:8000/v1');
    expect(endpointLabel({ baseUrl: 'http://10.0.0.5:8000/v1', label: LABEL })).toBe(LABEL);
    expect(
      concealAddress('connect ECONNREFUSED 10.0.0.5:8000 (http://10.0.0.5:8000/v1)', {
        baseUrl: 'http://10.0.0.5:8000/v1',
        label: LABEL,
      }),
    ).toBe(`connect ECONNREFUSED ${LABEL} (${LABEL})`);
    expect(concealAddress('connect ECONNREFUSED 10.0.0.5:8000', { baseUrl: 'http://10.0.0.5:8000/v1' })).toBe(
      'connect ECONNREFUSED 10.0.0.5:8000',
    );
  });

  it('names the label when it cannot be reached, and hides the address Node tried', async () => {
    const port = await closedPort();
    const server = { url: `http://127.0.0.1:${port}/v1`, host: `127.0.0.1:${port}` };
    const labelled = await failureOf(server.url, LABEL);
    expect(labelled.message).toContain(`could not reach the model provider openai-chat at ${LABEL}`);
    expect(labelled.message).toContain('ECONNREFUSED');
    expectConcealed(labelled, server);
    // Unlabelled, its owner reads where it went.
    expect((await failureOf(server.url, undefined)).message).toContain(`at ${server.url} (`);
  });

  it('names the label when it does not answer in time', async () => {
    const labelled = await failureOf(silent.url, LABEL, 200);
    expect(labelled.message).toBe(`the model provider openai-chat did not answer within 200 ms (${LABEL})`);
    expect((await failureOf(silent.url, undefined, 200)).message).toContain(`(${silent.url})`);
  });

  it('names the label in an HTTP error, and hides the address in the provider’s own text', async () => {
    const labelled = await failureOf(failing.url, LABEL);
    expect(labelled.message).toContain(`HTTP 500 from ${LABEL}`);
    expect(labelled.providerMessage).toBe(`upstream ${LABEL} is down`);
    expectConcealed(labelled, failing);
    const plain = await failureOf(failing.url, undefined);
    expect(plain.message).toContain(`HTTP 500 from ${failing.url}`);
    expect(plain.providerMessage).toBe(`upstream ${failing.url} is down`);
  });

  it('names the label for an unknown model, and for a redirect without saying where to', async () => {
    const missing = await failureOf(unknown.url, LABEL);
    expect(missing.message).toContain(`unknown model 'm' at ${LABEL}`);
    expectConcealed(missing, unknown);

    const redirect = await failureOf(redirecting.url, LABEL);
    expect(redirect.message).toContain(`the model provider openai-chat at ${LABEL} answered with a redirect (HTTP 307)`);
    expectConcealed(redirect, redirecting);
    expect((await failureOf(redirecting.url, undefined)).message).toContain(
      `to ${redirecting.url.replace('/v1', '')}/elsewhere/v1`,
    );
  });

  it('names the label when the key is missing', () => {
    const missing = (() => {
      try {
        assertApiKey('xai', XAI_DEFAULT_BASE_URL, undefined, LABEL);
      } catch (error) {
        return error as Error;
      }
      return undefined;
    })();
    expect(missing?.message).toContain(`no API key for xai at ${LABEL}:`);
    expect(missing?.message).not.toContain('api.x.ai');
    expect(() => new ChatCompletionsClient({ provider: 'xai', baseUrl: XAI_DEFAULT_BASE_URL, model: 'm' })).toThrow(
      `no API key for xai at ${XAI_DEFAULT_BASE_URL}:`,
    );
    expect(() => new ChatCompletionsClient({ provider: 'xai', baseUrl: XAI_DEFAULT_BASE_URL, model: 'm', label: LABEL })).toThrow(
      `no API key for xai at ${LABEL}:`,
    );
  });

  it('names the label in the checks: a model list that is not there, a test request that fails', async () => {
    const list = checkFailureOf(
      await listModels({ provider: 'openai-chat', baseUrl: unknown.url, label: LABEL }).catch((e: unknown) => e),
    );
    expect(list).toMatchObject({ code: 'model_request_rejected', status: 404 });
    expect(list.message).toBe(`the model server at ${LABEL} lists no models (HTTP 404 for /models)`);
    expect(list.providerMessage).toBe(`no model m at ${LABEL}`);

    const test = checkFailureOf(
      await testModel({ provider: 'openai-chat', baseUrl: failing.url, model: 'm', label: LABEL }).catch((e: unknown) => e),
    );
    expect(test).toMatchObject({ code: 'model_server_error', status: 500, providerMessage: `upstream ${LABEL} is down` });
    expect(test.message).toContain(LABEL);
    expect(test.message).not.toContain(failing.host);
  });
});
