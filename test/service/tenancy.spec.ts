import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { routeSchemas } from '../../apps/api/src/common/route-docs.js';
import { collectApiRoutes, listApiRoutes, type ApiRouteSummary } from '../../apps/api/src/openapi/api-routes.js';
import { startTestApp, type TestApp } from '../../apps/api/src/testing/test-app.js';
import { testApiConfig } from '../../apps/api/src/testing/test-config.js';
import { bearer, signUp, type TestUser } from '../support/index.js';

// Table-driven isolation check: every authenticated route that names an entity by id is called by Bob with
// Alice's ids and must answer exactly like a missing id (404 NOT_FOUND), with a body that would be valid,
// so that validation cannot hide a leak. A new route fails this suite until it has a row below.

/** Alice's entities, by the path parameter names the routes use. */
interface AliceIds {
  workspaceId: string;
  agentId: string;
  chatId: string;
  runId: string;
  userId: string;
  tokenId: string;
  invitationId: string;
  accountId: string;
}

type Body = Record<string, unknown> | null;

/**
 * A valid request body (null: none) for every route with path parameters, keyed `METHOD path`. Bob's own
 * email where one is asked for: a leak would add him to Alice's workspace.
 */
function bodies(bob: TestUser): Record<string, Body> {
  return {
    'DELETE /api/auth/tokens/:id': null,
    'GET /api/agents/:agentId': null,
    'PATCH /api/agents/:agentId': { name: `Bob's now ${randomUUID().slice(0, 8)}` },
    'DELETE /api/agents/:agentId': null,
    'GET /api/agents/:agentId/computer': null,
    'POST /api/agents/:agentId/computer/boot': null,
    'POST /api/agents/:agentId/computer/heartbeat': null,
    'POST /api/agents/:agentId/computer/release': null,
    'POST /api/agents/:agentId/computer/type': { text: 'hello' },
    'POST /api/agents/:agentId/computer/stop': null,
    'POST /api/agents/:agentId/computer/suspend': null,
    'POST /api/agents/:agentId/computer/takeover': null,
    'POST /api/agents/:agentId/computer/viewer-ticket': { mode: 'control' },
    'POST /api/agents/:agentId/computer/wake': null,
    'GET /api/agents/:agentId/chats': null,
    'POST /api/agents/:agentId/chats': { title: 'Bob was here' },
    'GET /api/runs/:runId': null,
    'POST /api/runs/:runId/answer': { text: 'an answer from Bob' },
    'POST /api/runs/:runId/cancel': null,
    'GET /api/runs/:runId/events': null,
    'GET /api/chats/:chatId': null,
    'PATCH /api/chats/:chatId': { title: 'Renamed by Bob' },
    'DELETE /api/chats/:chatId': null,
    'POST /api/chats/:chatId/clear': null,
    'GET /api/chats/:chatId/messages': null,
    'POST /api/chats/:chatId/messages': { text: 'a message from Bob', clientNonce: `bob-${randomUUID()}` },
    'GET /api/workspaces/:workspaceId': null,
    'PATCH /api/workspaces/:workspaceId': { name: 'Taken over by Bob', modelApiKey: 'sk-bob-0000' },
    'GET /api/workspaces/:workspaceId/agents': null,
    'POST /api/workspaces/:workspaceId/agents': { name: `Bob's agent ${randomUUID().slice(0, 8)}` },
    'GET /api/workspaces/:workspaceId/computers': null,
    'GET /api/workspaces/:workspaceId/runs/active': null,
    'GET /api/workspaces/:workspaceId/members': null,
    'GET /api/workspaces/:workspaceId/model/models': null,
    'POST /api/workspaces/:workspaceId/model/test': {},
    'GET /api/workspaces/:workspaceId/model/local-servers': null,
    'POST /api/workspaces/:workspaceId/members': { email: bob.email, role: 'owner' },
    'PATCH /api/workspaces/:workspaceId/members/:userId': { role: 'member' },
    'DELETE /api/workspaces/:workspaceId/members/:userId': null,
    'GET /api/workspaces/:workspaceId/invitations': null,
    'POST /api/workspaces/:workspaceId/invitations': { email: bob.email, role: 'owner' },
    'DELETE /api/workspaces/:workspaceId/invitations/:invitationId': null,
    'GET /api/agents/:agentId/vault': null,
    'POST /api/agents/:agentId/vault': { site: 'https://bob.example.com', username: 'bob', password: 'bob-password' },
    'POST /api/agents/:agentId/vault/import': { csv: 'url,username,password\nhttps://bob.example.com,bob,bob-password' },
    'GET /api/workspaces/:workspaceId/vault': null,
    'POST /api/workspaces/:workspaceId/vault': { site: 'https://bob.example.com', username: 'bob', password: 'bob-password' },
    'POST /api/workspaces/:workspaceId/vault/import': { csv: 'url,username,password\nhttps://bob.example.com,bob,bob-password' },
    'PATCH /api/vault/:accountId': { password: 'set-by-bob' },
    'DELETE /api/vault/:accountId': null,
    'PUT /api/vault/:accountId/agents': { agentIds: [] },
    'POST /api/vault/:accountId/reveal': { password: bob.password },
    'GET /api/vault/:accountId/totp': null,
    // The token is the capability: Bob tries the id of Alice's invitation (all he could have seen) as one.
    'POST /api/invitations/:token/accept': null,
  };
}

/** Alice's id for a path parameter, or undefined when the parameter names nothing this suite knows. */
function aliceIdFor(route: ApiRouteSummary, param: string, alice: AliceIds): string | undefined {
  if (param === 'id' && route.path.startsWith('/api/auth/tokens/')) return alice.tokenId;
  if (param === 'token' && route.path.startsWith('/api/invitations/')) return alice.invitationId;
  if (param in alice && param !== 'tokenId') return alice[param as keyof AliceIds];
  return undefined;
}

function fill(route: ApiRouteSummary, alice: AliceIds): { path: string; unfilled: string[] } {
  const unfilled: string[] = [];
  const path = route.params.reduce((p, param) => {
    const id = aliceIdFor(route, param, alice);
    if (!id) unfilled.push(param);
    return p.replace(`:${param}`, id ?? randomUUID());
  }, route.path);
  return { path, unfilled };
}

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

describe('cross-workspace isolation', () => {
  let api: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let ids: AliceIds;
  let bobToken: string;
  let routes: ApiRouteSummary[];
  const agentName = `Alice's agent ${randomUUID().slice(0, 8)}`;

  const as = (cookie: string) => ({
    get: (path: string) => request(api.url).get(path).set('Cookie', cookie),
    post: (path: string, body: object = {}) => request(api.url).post(path).set('Cookie', cookie).send(body),
  });

  beforeAll(async () => {
    // testApiConfig runs no executor: Alice's run stays queued, so any change Bob could make to it would show.
    api = await startTestApp(testApiConfig());
    routes = listApiRoutes(api.app);
    alice = await signUp(api.url);
    bob = await signUp(api.url);

    const agent = await as(alice.cookie).post(`/api/workspaces/${alice.workspaceId}/agents`, { name: agentName }).expect(201);
    const chat = await as(alice.cookie).post(`/api/agents/${agent.body.id}/chats`, { title: 'private' }).expect(201);
    const posted = await as(alice.cookie)
      .post(`/api/chats/${chat.body.id}/messages`, { text: 'my secret plan', clientNonce: `alice-${randomUUID()}` })
      .expect(202);
    const token = await as(alice.cookie).post('/api/auth/tokens', { name: "Alice's token" }).expect(201);
    // For Bob's own email: a leak would let him in.
    const invitation = await as(alice.cookie)
      .post(`/api/workspaces/${alice.workspaceId}/invitations`, { email: bob.email, role: 'owner' })
      .expect(201);
    const account = await as(alice.cookie)
      .post(`/api/agents/${agent.body.id}/vault`, {
        site: 'https://alice.example.com',
        username: 'alice',
        password: 'alice-password',
        totp: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
      })
      .expect(201);
    ids = {
      accountId: account.body.id,
      workspaceId: alice.workspaceId,
      agentId: agent.body.id,
      chatId: chat.body.id,
      runId: posted.body.run.id,
      userId: alice.userId,
      tokenId: token.body.id,
      invitationId: invitation.body.id,
    };
    bobToken = (await as(bob.cookie).post('/api/auth/tokens', { name: "Bob's token" }).expect(201)).body.token;
  });
  afterAll(() => api?.close());

  /** Routes Bob calls with Alice's ids: authenticated, not admin, naming something by id. Deletions last. */
  function tenantRoutes(): ApiRouteSummary[] {
    const scoped = routes.filter((route) => !route.public && !route.admin && route.params.length > 0);
    return [...scoped.filter((r) => r.method !== 'DELETE'), ...scoped.filter((r) => r.method === 'DELETE')];
  }

  it('knows a valid body and an id for every route with path parameters', () => {
    const table = bodies(bob);
    const scoped = tenantRoutes();
    expect(scoped.length).toBeGreaterThan(20);
    const problems = scoped.flatMap((route) => {
      const key = `${route.method} ${route.path}`;
      const { unfilled } = fill(route, ids);
      return [
        ...(key in table ? [] : [`${key}: no body entry in the table`]),
        ...unfilled.map((param) => `${key}: cannot fill :${param}`),
      ];
    });
    expect(problems).toEqual([]);
    // Each body passes the route's own schema (and a route that takes a body has one): a 404 is never a hidden 400.
    const handlers = collectApiRoutes(
      new DiscoveryService(api.app.get(ModulesContainer)),
      new MetadataScanner(),
      new Reflector(),
    );
    const invalid = scoped.flatMap((route) => {
      const key = `${route.method} ${route.path}`;
      const handler = handlers.find((h) => h.method === route.method && h.path === route.path)!.handler;
      const schema = routeSchemas(handler).body;
      const body = table[key] ?? null;
      if (!schema) return body === null ? [] : [`${key}: takes no body`];
      const parsed = schema.safeParse(body ?? {});
      return parsed.success ? [] : [`${key}: ${parsed.error.message}`];
    });
    expect(invalid).toEqual([]);
    // Rows for routes that no longer exist are stale: keep the table honest.
    const known = new Set(scoped.map((route) => `${route.method} ${route.path}`));
    expect(Object.keys(table).filter((key) => !known.has(key))).toEqual([]);
  });

  for (const via of ['session cookie', 'API token'] as const) {
    it(`answers Bob (${via}) 404 NOT_FOUND for each of Alice's ids, on every route`, async () => {
      const table = bodies(bob);
      const leaks: { route: string; status: number; body: unknown }[] = [];
      for (const route of tenantRoutes()) {
        const key = `${route.method} ${route.path}`;
        const { path } = fill(route, ids);
        let call = request(api.url)[route.method.toLowerCase() as Method](path);
        call = via === 'session cookie' ? call.set('Cookie', bob.cookie) : call.set(bearer(bobToken));
        const body = table[key];
        const res = await (body ? call.send(body) : call);
        if (res.status !== 404 || res.body?.error?.code !== 'NOT_FOUND')
          leaks.push({ route: key, status: res.status, body: res.body });
      }
      expect(leaks).toEqual([]);
    });
  }

  it("leaves Alice's data as it was", async () => {
    const alicesView = as(alice.cookie);
    const agent = await alicesView.get(`/api/agents/${ids.agentId}`).expect(200);
    expect(agent.body.name).toBe(agentName);
    const workspace = await alicesView.get(`/api/workspaces/${ids.workspaceId}`).expect(200);
    expect(workspace.body).toMatchObject({
      name: expect.not.stringContaining('Bob'),
      memberCount: 1,
      role: 'owner',
      model: { hasApiKey: false },
    });
    const members = await alicesView.get(`/api/workspaces/${ids.workspaceId}/members`).expect(200);
    expect(members.body.items).toEqual([expect.objectContaining({ userId: alice.userId, role: 'owner' })]);
    const agents = await alicesView.get(`/api/workspaces/${ids.workspaceId}/agents`).expect(200);
    expect(agents.body.map((b: { id: string }) => b.id)).toEqual([ids.agentId]);
    const chats = await alicesView.get(`/api/agents/${ids.agentId}/chats`).expect(200);
    expect(chats.body.map((s: { id: string }) => s.id)).toEqual([ids.chatId]);
    const messages = await alicesView.get(`/api/chats/${ids.chatId}/messages`).expect(200);
    expect(messages.body.items).toHaveLength(1);
    expect(JSON.stringify(messages.body.items)).toContain('my secret plan');
    const run = await alicesView.get(`/api/runs/${ids.runId}`).expect(200);
    expect(run.body).toMatchObject({ status: 'queued', cancelRequested: false });
    const tokens = await alicesView.get('/api/auth/tokens').expect(200);
    expect(tokens.body.items.map((t: { id: string }) => t.id)).toContain(ids.tokenId);
    const invitations = await alicesView.get(`/api/workspaces/${ids.workspaceId}/invitations`).expect(200);
    expect(invitations.body.items).toEqual([
      expect.objectContaining({ id: ids.invitationId, status: 'pending', role: 'owner', email: bob.email }),
    ]);
    const vault = await alicesView.get(`/api/agents/${ids.agentId}/vault`).expect(200);
    expect(vault.body.own).toEqual([
      expect.objectContaining({ id: ids.accountId, site: 'https://alice.example.com', username: 'alice' }),
    ]);
    expect(vault.body.own[0].updatedAt).toBe(vault.body.own[0].createdAt);
    expect((await alicesView.get(`/api/workspaces/${ids.workspaceId}/vault`).expect(200)).body).toEqual([]);
  });

  it("never lists Alice's data to Bob", async () => {
    const workspaces = await as(bob.cookie).get('/api/workspaces').expect(200);
    expect(workspaces.body.items.map((w: { id: string }) => w.id)).toEqual([bob.workspaceId]);
    const tokens = await as(bob.cookie).get('/api/auth/tokens').expect(200);
    expect(tokens.body.items.map((t: { id: string }) => t.id)).not.toContain(ids.tokenId);
    const me = await as(bob.cookie).get('/api/auth/me').expect(200);
    expect(me.body.workspaces.map((w: { id: string }) => w.id)).toEqual([bob.workspaceId]);
    const agents = await as(bob.cookie).get(`/api/workspaces/${bob.workspaceId}/agents`).expect(200);
    expect(agents.body).toEqual([]);
    const invitations = await as(bob.cookie).get(`/api/workspaces/${bob.workspaceId}/invitations`).expect(200);
    expect(invitations.body.items).toEqual([]);
  });

  it('answers Bob 403 FORBIDDEN on every admin route', async () => {
    const admin = routes.filter((route) => route.admin);
    expect(admin.length).toBeGreaterThan(0);
    const answers: { route: string; status: number; code: unknown }[] = [];
    for (const route of admin) {
      const { path } = fill(route, ids);
      const res = await request(api.url)
        [route.method.toLowerCase() as Method](path)
        .set('Cookie', bob.cookie)
        .send({ role: 'owner', isAdmin: true });
      answers.push({ route: `${route.method} ${route.path}`, status: res.status, code: res.body?.error?.code });
    }
    expect(answers.filter((a) => a.status !== 403 || a.code !== 'FORBIDDEN')).toEqual([]);
  });
});
