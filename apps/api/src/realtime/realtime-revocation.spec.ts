import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  REALTIME_EVENT,
  REALTIME_UNAUTHENTICATED,
  type RealtimeAck,
  type RealtimeEvent,
  type RealtimeRoom,
} from '@lazyboy/contracts';
import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import request from 'supertest';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { logIn, signUp, sleep, until, type TestUser } from '../../../../test/support/index.js';
import { RealtimePublisher } from './realtime-publisher.js';

// Losing access closes the user's sockets: a socket keeps the rooms it joined until it reconnects, so
// without this a removed member (or a signed-out or disabled user) would go on receiving events.

interface Client {
  socket: Socket;
  events: RealtimeEvent[];
  /** Resolves with the reason once the server closed the socket. */
  closed: Promise<string>;
}

const openSockets: Socket[] = [];
afterEach(() => {
  for (const socket of openSockets.splice(0)) socket.disconnect();
});

function connect(url: string, cookie: string): Promise<Client> {
  const socket = io(url, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
  openSockets.push(socket);
  const events: RealtimeEvent[] = [];
  socket.on(REALTIME_EVENT, (event: RealtimeEvent) => events.push(event));
  const closed = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, events, closed }));
    socket.once('connect_error', (error) => reject(error));
  });
}

function subscribe(client: Client, room: RealtimeRoom): Promise<RealtimeAck> {
  return client.socket.timeout(5_000).emitWithAck('subscribe', room) as Promise<RealtimeAck>;
}

function within<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`nothing happened within ${ms} ms`)), ms)),
  ]);
}

const cleared = (): RealtimeEvent => ({ type: 'messages.cleared', chatId: randomUUID() });

describe('realtime access revocation', () => {
  let api: TestApp;
  let publisher: RealtimePublisher;

  beforeAll(async () => {
    api = await startTestApp(testApiConfig());
    publisher = api.app.get(RealtimePublisher);
  });
  afterAll(() => api.close());

  it('disconnects a removed member, who then receives nothing more from the workspace', async () => {
    const owner = await signUp(api.url);
    const bob: TestUser = await signUp(api.url);
    const room: RealtimeRoom = { kind: 'workspace', id: owner.workspaceId };
    await request(api.url)
      .post(`/api/workspaces/${owner.workspaceId}/members`)
      .set('Cookie', owner.cookie)
      .send({ email: bob.email })
      .expect(201);
    const client = await connect(api.url, bob.cookie);
    expect(await subscribe(client, room)).toEqual({ ok: true });
    const before = cleared();
    await publisher.publish([room], before);
    await until('the event', () => client.events.length === 1);

    await request(api.url)
      .delete(`/api/workspaces/${owner.workspaceId}/members/${bob.userId}`)
      .set('Cookie', owner.cookie)
      .expect(204);
    expect(await within(client.closed)).toBe('io server disconnect');
    await publisher.publish([room], cleared());
    await sleep(300);
    expect(client.events).toEqual([before]);

    // His cookie still works, but the workspace's room is closed to him now.
    const again = await connect(api.url, bob.cookie);
    expect(await subscribe(again, room)).toEqual({ ok: false, error: 'not found' });
  });

  it('disconnects the sockets of a user who signs out', async () => {
    const ada = await signUp(api.url);
    const client = await connect(api.url, ada.cookie);
    expect(await subscribe(client, { kind: 'workspace', id: ada.workspaceId })).toEqual({ ok: true });
    await request(api.url).post('/api/auth/logout').set('Cookie', ada.cookie).expect(204);
    expect(await within(client.closed)).toBe('io server disconnect');
    await expect(connect(api.url, ada.cookie)).rejects.toThrow(REALTIME_UNAUTHENTICATED);
  });

  it('leaves the sockets of other users alone', async () => {
    const owner = await signUp(api.url);
    const bob = await signUp(api.url);
    const carol = await signUp(api.url);
    const base = `/api/workspaces/${owner.workspaceId}/members`;
    for (const user of [bob, carol]) {
      await request(api.url).post(base).set('Cookie', owner.cookie).send({ email: user.email }).expect(201);
    }
    const room: RealtimeRoom = { kind: 'workspace', id: owner.workspaceId };
    const carolClient = await connect(api.url, carol.cookie);
    expect(await subscribe(carolClient, room)).toEqual({ ok: true });
    await request(api.url).delete(`${base}/${bob.userId}`).set('Cookie', owner.cookie).expect(204);
    const event = cleared();
    await publisher.publish([room], event);
    await until("Carol's event", () => carolClient.events.length === 1);
    expect(carolClient.socket.connected).toBe(true);
  });
});

describe('realtime access revocation by an instance admin', () => {
  const appToken = 'realtime-admin-token-0123456789abcdef';
  // Unique per run: sign-in attempts are counted per email in the Redis every suite shares.
  const adminEmail = `root-${randomUUID().slice(0, 8)}@example.test`;
  let database: IsolatedDatabase;
  let api: TestApp;

  beforeAll(async () => {
    database = await createIsolatedDatabase();
    api = await startTestApp(
      testApiConfig({ DATABASE_URL: database.url, LAZYBOY_APP_TOKEN: appToken, LAZYBOY_ADMIN_EMAIL: adminEmail }),
    );
  });
  afterAll(async () => {
    await api?.close();
    await database?.drop();
  });

  it('disconnects a user the admin disables', async () => {
    const adminCookie = await logIn(api.url, adminEmail, appToken);
    const dave = await signUp(api.url);
    const client = await connect(api.url, dave.cookie);
    expect(await subscribe(client, { kind: 'workspace', id: dave.workspaceId })).toEqual({ ok: true });
    await request(api.url)
      .patch(`/api/admin/users/${dave.userId}`)
      .set('Cookie', adminCookie)
      .send({ disabled: true })
      .expect(200);
    expect(await within(client.closed)).toBe('io server disconnect');
    await expect(connect(api.url, dave.cookie)).rejects.toThrow(REALTIME_UNAUTHENTICATED);
  });
});
