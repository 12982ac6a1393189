import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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
import { signUp, sleep, type TestUser } from '../../../../test/support/index.js';
import { RealtimePublisher } from './realtime-publisher.js';

interface Replica extends TestApp {
  publisher: RealtimePublisher;
}

/** One API replica: the whole app on its own port, sharing Postgres and Redis with the others. */
async function startReplica(): Promise<Replica> {
  const api = await startTestApp(testApiConfig());
  return { ...api, publisher: api.app.get(RealtimePublisher) };
}

interface Client {
  socket: Socket;
  events: RealtimeEvent[];
  /** Resolves with the first received event matching the predicate (already received ones count). */
  next(match: (event: RealtimeEvent) => boolean, timeoutMs?: number): Promise<RealtimeEvent>;
}

const openSockets: Socket[] = [];

function connect(url: string, cookie?: string, origin?: string): Promise<Client> {
  const socket = io(url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    extraHeaders: { ...(cookie ? { cookie } : {}), ...(origin ? { origin } : {}) },
  });
  openSockets.push(socket);
  const events: RealtimeEvent[] = [];
  socket.on(REALTIME_EVENT, (event: RealtimeEvent) => events.push(event));
  const next = (match: (event: RealtimeEvent) => boolean, timeoutMs = 5_000) =>
    new Promise<RealtimeEvent>((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      const poll = () => {
        const found = events.find(match);
        if (found) return resolve(found);
        if (Date.now() > deadline) return reject(new Error('no matching realtime event arrived'));
        setTimeout(poll, 20);
      };
      poll();
    });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, events, next }));
    socket.once('connect_error', (error) => reject(error));
  });
}

function subscribe(client: Client, room: unknown): Promise<RealtimeAck> {
  return client.socket.timeout(5_000).emitWithAck('subscribe', room) as Promise<RealtimeAck>;
}

function unsubscribe(client: Client, room: unknown): Promise<RealtimeAck> {
  return client.socket.timeout(5_000).emitWithAck('unsubscribe', room) as Promise<RealtimeAck>;
}

const cleared = (chatId: string): RealtimeEvent => ({ type: 'messages.cleared', chatId });
const isCleared = (chatId: string) => (event: RealtimeEvent) => event.type === 'messages.cleared' && event.chatId === chatId;

describe('realtime gateway with Redis fan-out across replicas', () => {
  let a: Replica;
  let b: Replica;
  let alice: TestUser;
  let mallory: TestUser;
  let aliceAgentId: string;
  let aliceChatId: string;

  beforeAll(async () => {
    [a, b] = await Promise.all([startReplica(), startReplica()]);
    // Signed up on one replica, signed in on both: login sessions live in Postgres.
    [alice, mallory] = await Promise.all([signUp(a.url), signUp(b.url)]);
    const agent = await request(a.url)
      .post(`/api/workspaces/${alice.workspaceId}/agents`)
      .set('Cookie', alice.cookie)
      .send({ name: 'Helper' })
      .expect(201);
    const chat = await request(b.url).post(`/api/agents/${agent.body.id}/chats`).set('Cookie', alice.cookie).send({}).expect(201);
    aliceAgentId = agent.body.id;
    aliceChatId = chat.body.id;
  });

  afterAll(async () => {
    for (const socket of openSockets) socket.disconnect();
    await Promise.all([a?.close(), b?.close()]);
  });

  it('delivers an event published on replica A to a client connected to replica B', async () => {
    const client = await connect(b.url, alice.cookie);
    const room: RealtimeRoom = { kind: 'chat', id: aliceChatId };
    await expect(subscribe(client, room)).resolves.toEqual({ ok: true });

    await a.publisher.publish([room], cleared(aliceChatId));

    await expect(client.next(isCleared(aliceChatId))).resolves.toEqual(cleared(aliceChatId));
  });

  it('lets a member join their workspace and agent rooms, and sends an event in several rooms once', async () => {
    const client = await connect(a.url, alice.cookie);
    const workspaceRoom: RealtimeRoom = { kind: 'workspace', id: alice.workspaceId };
    const agentRoom: RealtimeRoom = { kind: 'agent', id: aliceAgentId };
    await expect(subscribe(client, workspaceRoom)).resolves.toEqual({ ok: true });
    await expect(subscribe(client, agentRoom)).resolves.toEqual({ ok: true });

    const marker = randomUUID();
    await b.publisher.publish([workspaceRoom, agentRoom], cleared(marker));

    await client.next(isCleared(marker));
    await sleep(200);
    expect(client.events.filter(isCleared(marker))).toHaveLength(1);
  });

  it("refuses another workspace's chat, agent and workspace rooms, and that client receives nothing", async () => {
    const owner = await connect(b.url, alice.cookie);
    const intruder = await connect(b.url, mallory.cookie);
    const rooms: RealtimeRoom[] = [
      { kind: 'chat', id: aliceChatId },
      { kind: 'agent', id: aliceAgentId },
      { kind: 'workspace', id: alice.workspaceId },
    ];
    for (const room of rooms) {
      await expect(subscribe(intruder, room)).resolves.toEqual({ ok: false, error: 'not found' });
      await expect(subscribe(owner, room)).resolves.toEqual({ ok: true });
    }

    const marker = randomUUID();
    await a.publisher.publish(rooms, cleared(marker));

    // The owner, on the same replica, got it: by then the intruder would have too.
    await owner.next(isCleared(marker));
    await sleep(300);
    expect(intruder.events).toEqual([]);
  });

  it('answers a missing room like a foreign one, and a malformed room as invalid', async () => {
    const client = await connect(a.url, alice.cookie);
    for (const kind of ['chat', 'agent', 'workspace'] as const) {
      await expect(subscribe(client, { kind, id: randomUUID() })).resolves.toEqual({ ok: false, error: 'not found' });
    }
    await expect(subscribe(client, { kind: 'computer', id: randomUUID() })).resolves.toEqual({
      ok: false,
      error: 'invalid room',
    });
    await expect(subscribe(client, { kind: 'chat', id: 'not-a-uuid' })).resolves.toEqual({ ok: false, error: 'invalid room' });
    await expect(subscribe(client, 'chat:whatever')).resolves.toEqual({ ok: false, error: 'invalid room' });
  });

  it('stops delivering after unsubscribe', async () => {
    const client = await connect(b.url, alice.cookie);
    const room: RealtimeRoom = { kind: 'agent', id: aliceAgentId };
    await expect(subscribe(client, room)).resolves.toEqual({ ok: true });
    const first = randomUUID();
    await a.publisher.publish([room], cleared(first));
    await client.next(isCleared(first));

    await expect(unsubscribe(client, room)).resolves.toEqual({ ok: true });
    // A second listener on the same replica tells us when the next event has been delivered.
    const witness = await connect(b.url, alice.cookie);
    await expect(subscribe(witness, room)).resolves.toEqual({ ok: true });
    const second = randomUUID();
    await a.publisher.publish([room], cleared(second));
    await witness.next(isCleared(second));
    await sleep(200);
    expect(client.events.filter(isCleared(second))).toEqual([]);
  });

  it('disconnects a handshake without a session cookie, or with an unknown or signed-out one', async () => {
    await expect(connect(a.url)).rejects.toThrow(REALTIME_UNAUTHENTICATED);
    await expect(connect(b.url, 'lazyboy_session=0123456789abcdef')).rejects.toThrow(REALTIME_UNAUTHENTICATED);
    await expect(connect(b.url, 'other=1')).rejects.toThrow(REALTIME_UNAUTHENTICATED);

    const leaving = await signUp(a.url);
    (await connect(b.url, leaving.cookie)).socket.disconnect();
    await request(a.url).post('/api/auth/logout').set('Cookie', leaving.cookie).expect(204);
    await expect(connect(b.url, leaving.cookie)).rejects.toThrow(REALTIME_UNAUTHENTICATED);
  });

  it("refuses a handshake from another site's page, though it carries a good cookie", async () => {
    const user = await signUp(a.url);
    await expect(connect(a.url, user.cookie, 'http://evil.example')).rejects.toThrow(REALTIME_UNAUTHENTICATED);
    // The same host under another port is another site's page too.
    const port = new URL(a.url).port;
    await expect(connect(a.url, user.cookie, `http://127.0.0.1:${Number(port) + 1}`)).rejects.toThrow(REALTIME_UNAUTHENTICATED);
    // A page of the API's own address is welcome.
    (await connect(a.url, user.cookie, new URL(a.url).origin)).socket.disconnect();
  });
});
