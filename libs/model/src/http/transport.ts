import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { ModelEndpointRefusedError, ModelProtocolError } from '../errors.js';
import type { ModelEndpointPolicy } from './endpoint-policy.js';

export interface RequestInit {
  headers: Record<string, string>;
  /** None: a GET. */
  body?: string;
  signal: AbortSignal;
  /** Connections go through the policy's resolver and pool; without one, Node's defaults. */
  policy?: ModelEndpointPolicy;
}

/** Statuses whose answer has no body (a Response refuses one for them). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * One POST (with a body) or GET (without) over node:http(s), answered as a fetch Response. Not fetch itself:
 * Node's fetch cannot take a resolver, and the endpoint policy must check the very addresses a socket
 * connects to. Redirects are never followed here; the caller decides what a 3xx means.
 */
export async function request(url: string, init: RequestInit): Promise<Response> {
  const target = new URL(url);
  const protocol = target.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new ModelEndpointRefusedError(`the model server URL ${protocol} is not http(s)`);
  }
  const transport = protocol === 'https:' ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const body = init.body;
    const request = transport.request(target, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(body)) },
      signal: init.signal,
      ...(init.policy ? { agent: init.policy.agentFor(protocol) } : {}),
    });
    request.once('error', reject);
    request.once('response', (incoming) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
      }
      const status = incoming.statusCode ?? 0;
      if (status < 200 || status > 599) {
        incoming.destroy();
        reject(new ModelProtocolError(`the model server at ${target.host} answered with HTTP status ${status}`));
        return;
      }
      let body: ReadableStream<Uint8Array> | null = null;
      if (NULL_BODY.has(status)) incoming.resume();
      // node:stream/web's ReadableStream is the global one; the two declarations merely differ in typing.
      else body = Readable.toWeb(incoming) as NodeReadableStream<Uint8Array> as unknown as ReadableStream<Uint8Array>;
      resolve(new Response(body, { status, statusText: incoming.statusMessage ?? '', headers }));
    });
    request.end(body);
  });
}
