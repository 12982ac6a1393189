import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { workerRoutes } from '@lazyboy/contracts';
import { until } from '../../../../test/support/index.js';
import { neverDelivered, WorkerCallError, WorkerClient } from './worker-client.js';

// Whether a call that failed could have done something decides what a run is told (nothing was done, or it
// may have been): the client must know a call it never sent from one the worker may have received.

describe('the worker client when the worker is known gone', () => {
  let server: http.Server;
  let baseUrl = '';
  const received: string[] = [];

  beforeAll(async () => {
    // A worker that hears every call and never answers: a call in flight stays in flight until aborted.
    server = http.createServer((req) => received.push(req.url ?? ''));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const failure = (client: WorkerClient) =>
    client.call(workerRoutes.listScreens, {}).then(
      () => undefined,
      (error: unknown) => error as WorkerCallError,
    );

  it('does not send a call once the worker is known gone, and says nothing was done', async () => {
    const gone = new AbortController();
    gone.abort(new Error('the worker was reported lost'));
    received.length = 0;
    const error = await failure(new WorkerClient({ baseUrl, token: 't' }, { gone: () => gone.signal }));
    expect(error).toBeInstanceOf(WorkerCallError);
    expect(error!.message).toContain('the worker was reported lost');
    expect(neverDelivered(error!)).toBe(true);
    expect(received).toEqual([]);
  });

  it('ends a call in flight when the worker is reported gone, as one that may have been done', async () => {
    const gone = new AbortController();
    received.length = 0;
    const pending = failure(new WorkerClient({ baseUrl, token: 't' }, { gone: () => gone.signal }));
    await until('the call to reach the worker', () => received.length > 0, { everyMs: 10 });
    gone.abort(new Error('the worker was reported lost'));
    const error = await pending;
    expect(error).toMatchObject({ code: 'UNREACHABLE' });
    expect(neverDelivered(error!)).toBe(false);
    expect(received).toEqual([workerRoutes.listScreens.path]);
  });
});
