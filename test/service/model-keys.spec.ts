import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { AgentView, RunView, WorkspaceView } from '@lazyboy/contracts';
import { ScriptedModelServer } from '@lazyboy/model';
import { CaptureServer } from '../../libs/model/src/testing/capture-server.js';
import { logInFirstAdmin, signUp, type TestUser } from '../support/index.js';
import { FINAL, ServiceHarness } from './service-harness.js';

// An agent's model key stays with the endpoint it was stored for (issue #13): agents run end to end against
// scripted model servers and a capture server, all on loopback, so this instance allows local model servers
// (an instance admin's switch) except where a test turns it off.

// Its own address per suite: the per-account sign-in limit lives in the one Redis every suite shares.
const ADMIN_EMAIL = `root-${randomUUID().slice(0, 8)}@example.test`;
const APP_TOKEN = `app-token-${randomUUID()}`;

describe('model keys stay with their endpoint', () => {
  const harness = new ServiceHarness();
  /** The endpoint Alice's agent was set up with, and where its key belongs. */
  const first = new ScriptedModelServer({ script: () => ({ text: 'from the first server' }) });
  const second = new ScriptedModelServer({ script: () => ({ text: 'from the second server' }) });
  let capture: CaptureServer;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let agent: AgentView;
  let chatId: string;

  const setSettings = (allowLocalModelServers: boolean) =>
    harness.call(admin, 'PATCH', '/api/admin/settings', { allowLocalModelServers });
  const patchAgent = (user: TestUser, body: object) => harness.raw(user, 'PATCH', `/api/agents/${agent.id}`, body);

  /** Alice says something to her agent and waits for the run to end. */
  async function run(): Promise<RunView> {
    const sent = await harness.send(alice, chatId, 'Hello there!');
    return harness.runUntil(alice, sent.run.id, FINAL);
  }

  beforeAll(async () => {
    await Promise.all([first.start(), second.start()]);
    capture = await CaptureServer.start();
    // An empty database of its own: LAZYBOY_APP_TOKEN makes its first user an instance admin.
    await harness.start(() => ({ text: 'from the environment' }), {
      LAZYBOY_APP_TOKEN: APP_TOKEN,
      LAZYBOY_ADMIN_EMAIL: ADMIN_EMAIL,
    });
    admin = { cookie: await logInFirstAdmin(harness.app.url, ADMIN_EMAIL, APP_TOKEN) } as TestUser;
    await setSettings(true);
    [alice, bob] = await Promise.all([signUp(harness.app.url), signUp(harness.app.url)]);
    await harness.call(alice, 'POST', `/api/workspaces/${alice.workspaceId}/members`, { email: bob.email, role: 'member' });
    agent = await harness.call<AgentView>(alice, 'POST', `/api/workspaces/${alice.workspaceId}/agents`, {
      name: 'Keyed',
      modelSettings: { baseUrl: first.url, model: 'first-model' },
    });
    await harness.call(alice, 'PATCH', `/api/agents/${agent.id}`, { modelApiKey: 'sk-first' });
    chatId = (await harness.call<{ id: string }>(alice, 'POST', `/api/agents/${agent.id}/chats`, {})).id;
  });

  afterAll(async () => {
    await harness.stop();
    await Promise.all([first.close(), second.close(), capture?.close()]);
  }, 120_000);

  it("refuses a member's base-URL change (403), so the key keeps going to its own endpoint only", async () => {
    for (const body of [
      { modelSettings: { baseUrl: capture.url, model: 'first-model' } },
      { modelSettings: { baseUrl: capture.url }, modelApiKey: 'sk-bob' },
    ]) {
      const res = await patchAgent(bob, body);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    }
    // A member is not shown the base URL (it can name a machine on the owner's LAN); its owner is.
    const view = await harness.call<AgentView>(bob, 'GET', `/api/agents/${agent.id}`);
    expect(view).toMatchObject({ modelSettings: { model: 'first-model' }, hasModelApiKey: true });
    expect(view.modelSettings.baseUrl).toBeUndefined();
    const owners = await harness.call<AgentView>(alice, 'GET', `/api/agents/${agent.id}`);
    expect(owners).toMatchObject({ modelSettings: { baseUrl: first.url }, hasModelApiKey: true });

    expect(await run()).toMatchObject({ status: 'completed', resultText: 'from the first server' });
    expect(first.requests.map((request) => request.headers['authorization'])).toEqual(['Bearer sk-first']);
    expect(capture.requests).toEqual([]);
  });

  it('drops the key when an owner changes the base URL without a new one: the next run sends no Authorization', async () => {
    const res = await patchAgent(alice, { modelSettings: { baseUrl: capture.url, model: 'first-model' } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as AgentView).hasModelApiKey).toBe(false);

    const ended = await run();
    expect(ended.status).not.toBe('completed');
    expect(`${ended.resultText} ${ended.errorMessage}`).toContain('capture server: nothing here');
    // Neither the agent's old key nor the environment's (meant for the environment's server) went along.
    expect(capture.requests).toHaveLength(1);
    expect(capture.authorizations).toEqual([undefined]);
    expect(first.requests).toHaveLength(1);
  });

  it('sends a key that comes with the new base URL to that URL only', async () => {
    const res = await patchAgent(alice, {
      modelSettings: { baseUrl: second.url, model: 'second-model' },
      modelApiKey: 'sk-second',
    });
    expect(((await res.json()) as AgentView).hasModelApiKey).toBe(true);

    expect(await run()).toMatchObject({ status: 'completed', resultText: 'from the second server' });
    expect(second.requests.map((request) => [request.model, request.headers['authorization']])).toEqual([
      ['second-model', 'Bearer sk-second'],
    ]);
    expect(first.requests).toHaveLength(1);
    expect(capture.requests).toHaveLength(1);
  });

  it('never follows a redirect from the model server: the key reaches nothing but the base URL', async () => {
    second.setScript(() => ({ redirectTo: `${capture.url}/chat/completions` }));
    try {
      const ended = await run();
      expect(ended.status).not.toBe('completed');
      expect(`${ended.resultText} ${ended.errorMessage}`).toMatch(
        /answered with a redirect \(HTTP 307 to http:\/\/127\.0\.0\.1:/,
      );
      expect(second.requests.map((request) => request.headers['authorization'])).toEqual(['Bearer sk-second']);
      expect(capture.requests).toHaveLength(1);
    } finally {
      second.setScript(() => ({ text: 'from the second server' }));
    }
  });

  it('refuses loopback base URLs once local model servers are off, on save and at request time', async () => {
    // Only an instance admin switches it, not a workspace owner.
    expect((await harness.raw(alice, 'PATCH', '/api/admin/settings', { allowLocalModelServers: false })).status).toBe(403);
    await setSettings(false);
    try {
      const refused = await patchAgent(alice, { modelSettings: { baseUrl: first.url, model: 'first-model' } });
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { error: { code: string; details: { issues: { path: string }[] } } };
      expect(body.error.code).toBe('VALIDATION_FAILED');
      expect(body.error.details.issues.map((issue) => issue.path)).toEqual(['modelSettings.baseUrl']);

      // Settings saved while it was on are held to the policy when the run connects.
      const seen = second.requests.length;
      const ended = await run();
      expect(ended.status).not.toBe('completed');
      expect(`${ended.resultText} ${ended.errorMessage}`).toContain(
        `the model server 127.0.0.1:${new URL(second.url).port} is refused: it is a loopback address`,
      );
      expect(second.requests).toHaveLength(seen);
    } finally {
      await setSettings(true);
    }
    expect(await run()).toMatchObject({ status: 'completed', resultText: 'from the second server' });
  });

  it("never lets an agent's key reach an endpoint it was not saved with: not the workspace's, whoever changes that", async () => {
    // Alice's second workspace, whose base URL its admin (Bob) changes at will.
    const other = await harness.call<WorkspaceView>(alice, 'POST', '/api/workspaces', { name: 'Shared' });
    await harness.call(alice, 'POST', `/api/workspaces/${other.id}/members`, { email: bob.email, role: 'admin' });
    await harness.call(alice, 'PATCH', `/api/workspaces/${other.id}`, {
      modelSettings: { provider: 'openai-chat', baseUrl: first.url, model: 'first-model' },
    });
    const agent = await harness.call<AgentView>(alice, 'POST', `/api/workspaces/${other.id}/agents`, {
      name: 'Inherits',
      modelSettings: { model: 'first-model' },
    });
    const patch = (body: object) => harness.raw(alice, 'PATCH', `/api/agents/${agent.id}`, body);

    // A key for an agent whose settings name no endpoint of its own: refused, nothing stored.
    for (const body of [{ modelApiKey: 'sk-agent' }, { modelSettings: { model: 'first-model' }, modelApiKey: 'sk-agent' }]) {
      const refused = await patch(body);
      expect(refused.status).toBe(400);
      const error = ((await refused.json()) as { error: { code: string; details: { issues: { path: string }[] } } }).error;
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.details.issues.map((issue) => issue.path)).toEqual(['modelApiKey']);
    }
    expect((await harness.call<AgentView>(alice, 'GET', `/api/agents/${agent.id}`)).hasModelApiKey).toBe(false);

    // With its own base URL the key is kept; settings that stop naming one drop it.
    expect(
      (
        (await (
          await patch({ modelSettings: { baseUrl: first.url, model: 'first-model' }, modelApiKey: 'sk-agent' })
        ).json()) as AgentView
      ).hasModelApiKey,
    ).toBe(true);
    expect(((await (await patch({ modelSettings: { model: 'first-model' } })).json()) as AgentView).hasModelApiKey).toBe(false);

    // Bob points the workspace at his server: the agent's run gets there without any key.
    await harness.call(bob, 'PATCH', `/api/workspaces/${other.id}`, {
      modelSettings: { provider: 'openai-chat', baseUrl: capture.url, model: 'first-model' },
    });
    const seen = capture.requests.length;
    const chat = await harness.call<{ id: string }>(alice, 'POST', `/api/agents/${agent.id}/chats`, {});
    const sent = await harness.send(alice, chat.id, 'Hello there!');
    const ended = await harness.runUntil(alice, sent.run.id, FINAL);
    expect(ended.status).not.toBe('completed');
    expect(capture.requests.length).toBe(seen + 1);
    expect(capture.authorizations.slice(seen)).toEqual([undefined]);

    // Every model change of the agent is audited, never with the key.
    const client = new pg.Client({ connectionString: harness.database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ action: string; metadata: Record<string, unknown> }>(
        `SELECT action, metadata FROM "AuditLog" WHERE "targetId" = $1 AND action LIKE 'agent.%' ORDER BY id`,
        [agent.id],
      );
      expect(rows.map((row) => [row.action, row.metadata])).toEqual([
        [
          'agent.model_settings_change',
          { settings: { baseUrl: first.url, model: 'first-model' }, from: { model: 'first-model' } },
        ],
        ['agent.model_key_set', { replaced: false }],
        [
          'agent.model_settings_change',
          { settings: { model: 'first-model' }, from: { baseUrl: first.url, model: 'first-model' } },
        ],
        ['agent.model_key_remove', { reason: 'endpoint_changed' }],
      ]);
      expect(JSON.stringify(rows)).not.toContain('sk-agent');
    } finally {
      await client.end();
    }
  });
});
