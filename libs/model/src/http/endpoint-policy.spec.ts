import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { createModelClient } from '../create-model-client.js';
import { ModelEndpointRefusedError } from '../errors.js';
import { scriptedBackend } from '../scripted/scripted-backend.js';
import { ScriptedModelServer } from '../scripted/scripted-model-server.js';
import { ModelEndpointPolicy } from './endpoint-policy.js';
import type { RetryNotice } from './model-http.js';

const ALWAYS_REFUSED = [
  'http://169.254.169.254/latest/meta-data',
  'http://169.254.169.254./',
  'http://[fe80::1]:11434/v1',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://0.0.0.0:11434/v1',
  'http://0/',
  'http://[::]:11434/v1',
  'http://[::ffff:0.0.0.0]/',
  'http://[::127.0.0.1]/',
  'http://metadata.google.internal/',
  'http://[fd00:ec2::254]/latest/meta-data',
  'http://100.100.100.200/latest/meta-data',
  'http://[::ffff:100.100.100.200]/',
  'http://192.0.0.192/opc/v2/instance',
  'ftp://models.example.net/',
  'file:///etc/passwd',
  'http://user:secret@models.example.net/v1',
  'http://models.example.net/v1?next=/',
  'http://models.example.net/v1#x',
  'not a url',
];

const LOCAL = [
  'http://127.0.0.1:11434/v1',
  'http://127.8.9.10/',
  'http://127.1/',
  'http://2130706433/',
  'http://0x7f.0.0.1/',
  'http://[::1]:11434/v1',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://localhost:11434/v1',
  'http://LOCALHOST./',
  'http://ollama.localhost/',
  'http://host.docker.internal:11434/v1',
  'http://redis.lazyboy.svc/',
  'http://ollama.ai.svc.cluster.local.:11434/v1',
  'http://192.168.1.20:11434/v1',
  'http://10.0.0.5:8000/v1',
  'http://172.16.4.4/v1',
  'http://172.31.255.255/',
  'http://100.64.0.1/',
  'http://[fd00::5]/v1',
  'http://[fc00::1]/',
  'http://[::ffff:192.168.0.9]/',
];

const ALLOWED = [
  'http://172.32.0.1/',
  'http://100.128.0.1/',
  'http://192.0.0.193/',
  'http://ollama-box:11434/v1',
  'https://models.example.net/v1',
  'https://api.x.ai/v1',
];

describe('ModelEndpointPolicy', () => {
  it('refuses link-local, unspecified, metadata, non-http(s) and decorated URLs whatever the setting', () => {
    for (const allowLoopback of [false, true]) {
      const policy = new ModelEndpointPolicy({ allowLoopback });
      for (const url of ALWAYS_REFUSED)
        expect({ url, refusal: policy.refusalOf(url) }).toEqual({ url, refusal: expect.any(String) });
    }
    expect(new ModelEndpointPolicy().refusalOf('http://169.254.169.254/')).toBe(
      'is a link-local address (where cloud metadata lives)',
    );
    expect(new ModelEndpointPolicy({ allowLoopback: true }).refusalOf('http://[fd00:ec2::254]/')).toBe(
      'is a cloud metadata address',
    );
  });

  it('refuses loopback, private networks, the container host and cluster services unless local model servers are allowed', () => {
    const closed = new ModelEndpointPolicy();
    const open = new ModelEndpointPolicy({ allowLoopback: true });
    for (const url of LOCAL) {
      expect({ url, refusal: closed.refusalOf(url) }).toEqual({ url, refusal: expect.stringContaining('local model servers') });
      expect({ url, refusal: open.refusalOf(url) }).toEqual({ url, refusal: undefined });
    }
    expect(closed.refusalOf('http://127.0.0.1:11434/v1')).toBe(
      'is a loopback address (this machine), and local model servers are not allowed on this instance (an instance admin can allow them)',
    );
  });

  it('lets public addresses and names through', () => {
    const policy = new ModelEndpointPolicy();
    for (const url of ALLOWED) expect({ url, refusal: policy.refusalOf(url) }).toEqual({ url, refusal: undefined });
  });

  it('refuses the networks the operator lists, IPv4-mapped forms included, and rejects a list it cannot read', () => {
    const policy = new ModelEndpointPolicy({
      allowLoopback: true,
      blockedNetworks: ['10.96.0.0/12', 'fd00:10::/64', '192.168.7.7'],
    });
    for (const url of [
      'http://10.96.0.10/',
      'http://10.100.1.1/',
      'http://[::ffff:10.96.0.10]/',
      'http://[fd00:10::3]/',
      'http://192.168.7.7/',
    ]) {
      expect({ url, refusal: policy.refusalOf(url) }).toEqual({
        url,
        refusal: expect.stringContaining('LAZYBOY_MODEL_BLOCKED_NETWORKS'),
      });
    }
    expect(policy.refusalOf('http://10.95.255.255/')).toBeUndefined();
    expect(policy.refusalOf('http://192.168.7.8/')).toBeUndefined();
    for (const bad of ['banana', '10.0.0.0/33', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x', '']) {
      expect(() => new ModelEndpointPolicy({ blockedNetworks: [bad] })).toThrow(/is not a network/);
    }
  });
});

describe('a model client under an endpoint policy', () => {
  const server = new ScriptedModelServer();
  /** A resolver of made-up names: what a DNS server (an attacker's, say) answers for them. */
  const names = new Map<string, string[]>();
  const resolve: LookupFunction = (hostname, options, callback) => {
    const addresses = names.get(hostname);
    if (!addresses) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all) {
      callback(
        null,
        addresses.map((address): LookupAddress => ({ address, family: net.isIP(address) })),
      );
    } else {
      callback(null, addresses[0]!, net.isIP(addresses[0]!));
    }
  };
  const port = () => new URL(server.url).port;
  const clientFor = (baseUrl: string, allowLoopback: boolean, notices: RetryNotice[] = []) =>
    createModelClient(
      { ...scriptedBackend(server), baseUrl },
      {
        endpointPolicy: new ModelEndpointPolicy({ allowLoopback, resolve }),
        retry: { baseDelayMs: 1, maxDelayMs: 2 },
        // Bounds a wrong implementation that connects to the unroutable address below.
        timeoutMs: 5_000,
        onRetry: (notice) => notices.push(notice),
      },
    );
  const hello = { messages: [{ role: 'user' as const, content: 'hi' }] };

  beforeAll(async () => {
    await server.start();
    names.set('model.example.test', ['127.0.0.1']);
    // 192.0.2.0/24 is reserved for documentation: nothing answers there.
    names.set('mixed.example.test', ['192.0.2.1', '127.0.0.1']);
  });
  afterAll(() => server.close());

  it('refuses a name that resolves to loopback at connection time, sending nothing and not retrying', async () => {
    server.setScript([{ text: 'unused' }]);
    const notices: RetryNotice[] = [];
    const error = await clientFor(`http://model.example.test:${port()}/v1`, false, notices)
      .complete(hello)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelEndpointRefusedError);
    expect((error as Error).message).toBe(
      'the model server model.example.test is refused: it resolves to 127.0.0.1, which is a loopback address (this machine), ' +
        'and local model servers are not allowed on this instance (an instance admin can allow them)',
    );
    expect((error as ModelEndpointRefusedError).provider).toBe('openai-chat');
    expect(notices).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a name when any of its addresses is refused', async () => {
    server.setScript([{ text: 'unused' }]);
    await expect(clientFor(`http://mixed.example.test:${port()}/v1`, false).complete(hello)).rejects.toThrow(
      /mixed\.example\.test is refused: it resolves to 127\.0\.0\.1/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a literal loopback base URL before connecting', async () => {
    server.setScript([{ text: 'unused' }]);
    await expect(clientFor(server.url, false).complete(hello)).rejects.toThrow(ModelEndpointRefusedError);
    expect(server.requests).toHaveLength(0);
  });

  it('connects to exactly the address it checked when loopback is allowed', async () => {
    server.setScript([{ text: 'through the policy' }, { text: 'streamed through it' }]);
    const client = clientFor(`http://model.example.test:${port()}/v1`, true);
    expect((await client.complete(hello)).text).toBe('through the policy');
    expect((await client.complete(hello, () => undefined)).text).toBe('streamed through it');
    expect(server.requests.map((request) => request.headers['host'])).toEqual([
      `model.example.test:${port()}`,
      `model.example.test:${port()}`,
    ]);
  });
});
