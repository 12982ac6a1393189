import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type {
  AdminRunListView,
  AgentView,
  LocalModelServerListView,
  ModelListView,
  MessageView,
  ModelTestView,
  PostMessageResponse,
  RunView,
  WorkspaceListView,
  WorkspaceView,
} from '@lazyboy/contracts';
import { ScriptedModelServer, type ReceivedRequest } from '@lazyboy/model';
import { CaptureServer } from '../../libs/model/src/testing/capture-server.js';
import { LOCAL_MODEL_SERVER_CANDIDATES } from '../../apps/api/src/model/workspace-model.service.js';
import { logInFirstAdmin, signUp, type TestUser } from '../support/index.js';
import { FINAL, ServiceHarness } from './service-harness.js';

// A workspace's model (issue #14): its settings and key in PATCH /api/workspaces/:id, used by its agents'
// runs through the one credential chain (agent → workspace → the host's environment, which by default
// serves the first workspace only), and the settings page's checks (model list, test, local servers).
// Every model is a scripted server on loopback, so the instance allows local model servers unless a test
// turns that off.

// Its own address per suite: the per-account sign-in limit lives in the one Redis every suite shares.
const ADMIN_EMAIL = `root-${randomUUID().slice(0, 8)}@example.test`;
const APP_TOKEN = `app-token-${randomUUID()}`;
/** The workspace key, planted to be searched for in every answer, log line and row afterwards. */
const SECRET = `sk-workspace-${randomUUID()}`;
const AGENT_SECRET = `sk-agent-${randomUUID()}`;

/** Answers like a provider: the right key gets "pong", any other the 401 a provider gives, echoing what it got. */
function keyChecking(reply: string) {
  return (request: ReceivedRequest) => {
    const presented = request.headers['authorization']?.replace(/^Bearer /, '');
    if (presented === SECRET) return { text: reply };
    return {
      httpStatus: 401,
      errorBody: {
        error: {
          message: `Incorrect API key provided: ${presented ?? 'none'}.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    };
  };
}

async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("a workspace's model", () => {
  const harness = new ServiceHarness();
  /** The workspace's own model server: lists two models, insists on SECRET. */
  const workspaceModel = new ScriptedModelServer({ models: ['alpha', 'beta'], script: keyChecking('from the workspace') });
  const agentModel = new ScriptedModelServer({ script: () => ({ text: 'from the agent' }) });
  /** Another endpoint, which must never see the workspace's key. */
  const elsewhere = new ScriptedModelServer({ models: ['gamma'], script: () => ({ text: 'from elsewhere' }) });
  /** A model server "found" on a usual local port (the candidates are replaced for the test). */
  const local = new ScriptedModelServer({ models: ['llama3'], script: () => ({ text: 'local' }) });
  let capture: CaptureServer;
  let admin: TestUser;
  let adminWorkspaceId: string;
  let alice: TestUser;
  let bob: TestUser;
  let mallory: TestUser;
  let aliceAgent: AgentView;
  let aliceChat: string;
  /** Every answer the API gave in this suite, and everything the process printed meanwhile. */
  const answers: string[] = [];
  const printed: string[] = [];
  const restore: (() => void)[] = [];

  async function api<T>(user: TestUser, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await harness.raw(user, method, path, body);
    const text = await res.text();
    answers.push(text);
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  }
  const workspacePath = () => `/api/workspaces/${alice.workspaceId}`;
  const setInstance = (body: object) => api(admin, 'PATCH', '/api/admin/settings', body);

  async function run(user: TestUser, chatId: string): Promise<RunView> {
    const sent = await api<PostMessageResponse>(user, 'POST', `/api/chats/${chatId}/messages`, {
      text: 'Hello there!',
      clientNonce: `nonce-${randomUUID()}`,
    });
    expect(sent.status).toBe(202);
    await harness.runUntil(user, sent.body.run.id, FINAL);
    return (await api<RunView>(user, 'GET', `/api/runs/${sent.body.run.id}`)).body;
  }

  async function agentOf(user: TestUser, workspaceId = user.workspaceId): Promise<{ agent: AgentView; chatId: string }> {
    const agent = await api<AgentView>(user, 'POST', `/api/workspaces/${workspaceId}/agents`, {
      name: `Ada ${randomUUID().slice(0, 6)}`,
    });
    const chat = await api<{ id: string }>(user, 'POST', `/api/agents/${agent.body.id}/chats`, {});
    return { agent: agent.body, chatId: chat.body.id };
  }

  beforeAll(async () => {
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        printed.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return write(chunk, ...rest);
      }) as typeof stream.write;
      restore.push(() => {
        stream.write = write as typeof stream.write;
      });
    }
    await Promise.all([workspaceModel.start(), agentModel.start(), elsewhere.start(), local.start()]);
    capture = await CaptureServer.start();
    // The default scope (the first workspace only), not the harness's; LAZYBOY_APP_TOKEN makes the first admin.
    await harness.start(
      () => ({ text: 'from the environment' }),
      { LAZYBOY_APP_TOKEN: APP_TOKEN, LAZYBOY_ADMIN_EMAIL: ADMIN_EMAIL, LAZYBOY_ENVIRONMENT_MODEL_SCOPE: 'first_workspace' },
      [
        {
          provide: LOCAL_MODEL_SERVER_CANDIDATES,
          useValue: [
            { kind: 'ollama', baseUrl: local.url },
            { kind: 'llama.cpp', baseUrl: capture.url },
            { kind: 'vllm', baseUrl: `http://127.0.0.1:${await closedPort()}/v1` },
          ],
        },
      ],
    );
    admin = { cookie: await logInFirstAdmin(harness.app.url, ADMIN_EMAIL, APP_TOKEN) } as TestUser;
    adminWorkspaceId = (await api<WorkspaceListView>(admin, 'GET', '/api/workspaces')).body.items[0]!.id;
    expect((await setInstance({ allowLocalModelServers: true })).status).toBe(200);
    [alice, bob, mallory] = await Promise.all([signUp(harness.app.url), signUp(harness.app.url), signUp(harness.app.url)]);
    expect((await api(alice, 'POST', `${workspacePath()}/members`, { email: bob.email, role: 'member' })).status).toBe(201);
    ({ agent: aliceAgent, chatId: aliceChat } = await agentOf(alice));
  });

  afterAll(async () => {
    for (const undo of restore) undo();
    await harness.stop();
    await Promise.all([workspaceModel.close(), agentModel.close(), elsewhere.close(), local.close(), capture?.close()]);
  }, 120_000);

  it('serves the host’s environment model to the first workspace only, by default', async () => {
    expect((await api<{ environmentModelScope: string }>(admin, 'GET', '/api/admin/settings')).body.environmentModelScope).toBe(
      'first_workspace',
    );
    // Known before any run starts: Alice's agent has no model.
    expect(aliceAgent.modelReadiness).toEqual({
      usable: false,
      code: 'model_not_configured',
      source: null,
      provider: null,
      model: null,
    });
    const view = (await api<WorkspaceView>(alice, 'GET', workspacePath())).body;
    expect(view.model).toMatchObject({ hostModel: 'not_for_this_workspace', hasApiKey: false, apiKeyLast4: null });
    expect(view.model.readiness.code).toBe('model_not_configured');

    const seen = harness.model.requests.length;
    const refused = await run(alice, aliceChat);
    expect(refused).toMatchObject({ status: 'failed', errorCode: 'model_not_configured' });
    expect(harness.model.requests).toHaveLength(seen);

    // The first admin's workspace has the host's model.
    const first = await agentOf(admin, adminWorkspaceId);
    expect(first.agent.modelReadiness).toMatchObject({ usable: true, source: 'env', provider: 'openai-chat' });
    expect(await run(admin, first.chatId)).toMatchObject({ status: 'completed', resultText: 'from the environment' });
    expect(harness.model.requests.at(-1)?.headers['authorization']).toBe('Bearer scripted-key');

    // An instance admin may let it serve every workspace, and take that back.
    expect((await setInstance({ environmentModelScope: 'all_workspaces' })).body).toMatchObject({
      environmentModelScope: 'all_workspaces',
    });
    const carol = await signUp(harness.app.url);
    const carols = await agentOf(carol);
    expect(carols.agent.modelReadiness).toMatchObject({ usable: true, source: 'env' });
    expect(await run(carol, carols.chatId)).toMatchObject({ status: 'completed', resultText: 'from the environment' });
    await setInstance({ environmentModelScope: 'first_workspace' });
    expect(await run(carol, carols.chatId)).toMatchObject({ status: 'failed', errorCode: 'model_not_configured' });
  });

  it('names the host’s model server, never its address, when the environment’s endpoint fails', async () => {
    // The admin's workspace has no settings of its own: the host's environment serves it.
    const port = await closedPort();
    const hostUrl = `http://127.0.0.1:${port}/v1`;
    const hidden = (text: string) => !text.includes(`127.0.0.1:${port}`) && !text.includes(harness.model.url);
    const previous = process.env.LAZYBOY_MODEL_BASE_URL;
    process.env.LAZYBOY_MODEL_BASE_URL = hostUrl;
    try {
      const { chatId } = await agentOf(admin, adminWorkspaceId);
      const blocked = await run(admin, chatId);
      expect(blocked).toMatchObject({ status: 'blocked', errorCode: 'model_unreachable' });
      expect(blocked.errorMessage).toContain("could not reach the model provider openai-chat at the host's model server");
      expect(hidden(blocked.errorMessage ?? '')).toBe(true);
      const page = await api<{ items: MessageView[] }>(admin, 'GET', `/api/chats/${chatId}/messages`);
      expect(page.body.items.some((message) => message.text.includes("the host's model server"))).toBe(true);
      expect(hidden(JSON.stringify(page.body))).toBe(true);

      const test = await api<ModelTestView>(admin, 'POST', `/api/workspaces/${adminWorkspaceId}/model/test`, {});
      expect(test.body).toMatchObject({ ok: false, source: 'env', baseUrl: null, error: { code: 'model_unreachable' } });
      expect(test.body.error?.message).toContain("at the host's model server");
      expect(hidden(JSON.stringify(test.body))).toBe(true);

      const models = await api<ModelListView>(admin, 'GET', `/api/workspaces/${adminWorkspaceId}/model/models`);
      expect(models.body).toMatchObject({ ok: false, baseUrl: null, error: { code: 'model_unreachable' } });
      expect(models.body.error?.message).toContain("at the host's model server");
      expect(hidden(JSON.stringify(models.body))).toBe(true);

      // Nor does the admin dashboard's list of runs.
      const dashboard = await api<AdminRunListView>(
        admin,
        'GET',
        `/api/admin/runs?workspaceId=${adminWorkspaceId}&status=blocked`,
      );
      const listed = dashboard.body.items.find((item) => item.id === blocked.id);
      expect(listed?.errorMessage).toContain("the host's model server");
      expect(hidden(JSON.stringify(dashboard.body))).toBe(true);
    } finally {
      process.env.LAZYBOY_MODEL_BASE_URL = previous;
    }
  });

  it('saves the workspace’s model and key (owners and admins), shows the key as its last four, and runs with it', async () => {
    const saved = await api<WorkspaceView>(alice, 'PATCH', workspacePath(), {
      name: 'Alice & Co',
      timezone: 'europe/berlin',
      modelSettings: { provider: 'openai-chat', baseUrl: workspaceModel.url, model: 'alpha' },
      modelApiKey: `  ${SECRET}  `,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      name: 'Alice & Co',
      timezone: 'Europe/Berlin',
      model: {
        settings: { provider: 'openai-chat', baseUrl: workspaceModel.url, model: 'alpha' },
        hasApiKey: true,
        apiKeyLast4: SECRET.slice(-4),
        readiness: { usable: true, code: null, source: 'workspace', provider: 'openai-chat', model: 'alpha' },
        localModelServersAllowed: true,
      },
    });
    // A member learns that the agents have a model, not where its endpoint is nor the key's characters.
    const asBob = (await api<WorkspaceView>(bob, 'GET', workspacePath())).body;
    expect(asBob.model).toMatchObject({
      settings: {},
      hasApiKey: true,
      apiKeyLast4: null,
      readiness: { usable: true, source: 'workspace', provider: 'openai-chat', model: 'alpha' },
    });
    expect(JSON.stringify(asBob)).not.toContain(workspaceModel.url);
    expect((await api<AgentView>(bob, 'GET', `/api/agents/${aliceAgent.id}`)).body.modelReadiness).toMatchObject({
      usable: true,
      source: 'workspace',
    });

    expect(await run(alice, aliceChat)).toMatchObject({ status: 'completed', resultText: 'from the workspace' });
    expect(workspaceModel.requests.map((r) => [r.model, r.headers['authorization']])).toEqual([['alpha', `Bearer ${SECRET}`]]);
  });

  it('lets an agent’s own settings and key win over the workspace’s, and falls back when they go', async () => {
    const own = await api<AgentView>(alice, 'PATCH', `/api/agents/${aliceAgent.id}`, {
      modelSettings: { baseUrl: agentModel.url, model: 'agent-model' },
      modelApiKey: AGENT_SECRET,
    });
    expect(own.body.modelReadiness).toMatchObject({ usable: true, source: 'agent', model: 'agent-model' });
    const before = workspaceModel.requests.length;
    expect(await run(alice, aliceChat)).toMatchObject({ status: 'completed', resultText: 'from the agent' });
    expect(agentModel.requests.map((r) => r.headers['authorization'])).toEqual([`Bearer ${AGENT_SECRET}`]);
    expect(workspaceModel.requests).toHaveLength(before);

    // Only a model name of its own: the workspace's endpoint and key, the agent's model.
    await api(alice, 'PATCH', `/api/agents/${aliceAgent.id}`, { modelSettings: { model: 'beta' } });
    expect(await run(alice, aliceChat)).toMatchObject({ status: 'completed', resultText: 'from the workspace' });
    expect(workspaceModel.requests.at(-1)).toMatchObject({ model: 'beta', headers: { authorization: `Bearer ${SECRET}` } });
    await api(alice, 'PATCH', `/api/agents/${aliceAgent.id}`, { modelSettings: {} });
  });

  it('ends a run whose key the provider refuses with model_key_refused and the provider’s own (redacted) text', async () => {
    await api(alice, 'PATCH', workspacePath(), { modelApiKey: 'sk-wrong-key-0001' });
    try {
      const ended = await run(alice, aliceChat);
      expect(ended.status).toBe('blocked');
      expect(ended.errorCode).toBe('model_key_refused');
      expect(ended.errorMessage).toContain('HTTP 401');
      expect(ended.errorMessage).toContain('Incorrect API key provided: [redacted].');
    } finally {
      await api(alice, 'PATCH', workspacePath(), { modelApiKey: SECRET });
    }
  });

  it('lists the models of the saved endpoint with its key, and of another endpoint without it', async () => {
    const saved = await api<ModelListView>(alice, 'GET', `${workspacePath()}/model/models`);
    expect(saved.body).toEqual({
      ok: true,
      provider: 'openai-chat',
      baseUrl: workspaceModel.url,
      models: ['alpha', 'beta'],
      sentApiKey: true,
      error: null,
    });
    expect(workspaceModel.modelListRequests.at(-1)?.headers['authorization']).toBe(`Bearer ${SECRET}`);

    const query = new URLSearchParams({ provider: 'openai-chat', baseUrl: elsewhere.url });
    const other = await api<ModelListView>(alice, 'GET', `${workspacePath()}/model/models?${query}`);
    expect(other.body).toMatchObject({ ok: true, models: ['gamma'], sentApiKey: false });
    expect(elsewhere.modelListRequests.map((r) => r.headers['authorization'])).toEqual([undefined]);

    const missing = new URLSearchParams({ baseUrl: capture.url });
    const failed = await api<ModelListView>(alice, 'GET', `${workspacePath()}/model/models?${missing}`);
    expect(failed.body).toMatchObject({
      ok: false,
      models: [],
      error: { code: 'model_request_rejected', status: 404, providerMessage: 'capture server: nothing here' },
    });
    expect(capture.authorizations).toEqual([undefined]);

    // Refused addresses are refused before anything is asked; a member may not look at all.
    const metadata = await api<{ error: { details: { issues: { path: string }[] } } }>(
      alice,
      'GET',
      `${workspacePath()}/model/models?${new URLSearchParams({ baseUrl: 'http://169.254.169.254/v1' })}`,
    );
    expect(metadata.status).toBe(400);
    expect(metadata.body.error.details.issues.map((issue) => issue.path)).toEqual(['baseUrl']);
    expect((await api(bob, 'GET', `${workspacePath()}/model/models`)).status).toBe(403);
  });

  it('tests the saved or given settings with one real request, with the provider’s error text when it fails', async () => {
    const test = (body: object) => api<ModelTestView>(alice, 'POST', `${workspacePath()}/model/test`, body);
    const ok = await test({});
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      ok: true,
      provider: 'openai-chat',
      model: 'alpha',
      baseUrl: workspaceModel.url,
      source: 'workspace',
      sentApiKey: true,
      reply: 'from the workspace',
      error: null,
    });

    const wrongKey = await test({ modelApiKey: 'sk-typo-0000-1111' });
    expect(wrongKey.body).toMatchObject({
      ok: false,
      sentApiKey: true,
      error: { code: 'model_key_refused', status: 401, providerMessage: 'Incorrect API key provided: [redacted].' },
    });
    expect(JSON.stringify(wrongKey.body)).not.toContain('sk-typo');

    // Another endpoint: the saved key stays home, and a closed port says it cannot be reached.
    const unreachable = `http://127.0.0.1:${await closedPort()}/v1`;
    const down = await test({ modelSettings: { provider: 'openai-chat', baseUrl: unreachable, model: 'm' } });
    expect(down.body).toMatchObject({ ok: false, sentApiKey: false, error: { code: 'model_unreachable', status: null } });
    expect(down.body.error?.message).toContain(`could not reach the model provider openai-chat at ${unreachable}`);

    const noModel = await test({ modelSettings: { baseUrl: elsewhere.url } });
    expect(noModel.body).toMatchObject({ ok: false, error: { code: 'model_name_missing', status: null } });
    expect(elsewhere.requests).toEqual([]);

    const refused = await api<{ error: { code: string } }>(alice, 'POST', `${workspacePath()}/model/test`, {
      modelSettings: { baseUrl: 'http://169.254.169.254/v1', model: 'm' },
    });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await api(bob, 'POST', `${workspacePath()}/model/test`, {})).status).toBe(403);
  });

  it('offers the local model servers that answer, only while the instance allows local servers', async () => {
    const found = await api<LocalModelServerListView>(alice, 'GET', `${workspacePath()}/model/local-servers`);
    expect(found.body).toEqual({
      allowed: true,
      reason: null,
      servers: [{ kind: 'ollama', baseUrl: local.url, provider: 'openai-chat', models: ['llama3'] }],
    });
    expect((await api(bob, 'GET', `${workspacePath()}/model/local-servers`)).status).toBe(403);

    await setInstance({ allowLocalModelServers: false });
    try {
      const seen = local.modelListRequests.length;
      expect((await api<LocalModelServerListView>(alice, 'GET', `${workspacePath()}/model/local-servers`)).body).toEqual({
        allowed: false,
        reason: 'local_model_servers_not_allowed',
        servers: [],
      });
      expect(local.modelListRequests).toHaveLength(seen);
      // The saved loopback endpoint is refused now, on every path, before any request.
      const before = workspaceModel.requests.length;
      const view = (await api<WorkspaceView>(alice, 'GET', workspacePath())).body;
      expect(view.model).toMatchObject({
        localModelServersAllowed: false,
        readiness: { usable: false, code: 'model_endpoint_refused' },
      });
      expect((await api<ModelTestView>(alice, 'POST', `${workspacePath()}/model/test`, {})).body.error?.code).toBe(
        'model_endpoint_refused',
      );
      expect((await api<ModelListView>(alice, 'GET', `${workspacePath()}/model/models`)).body.error?.code).toBe(
        'model_endpoint_refused',
      );
      expect(await run(alice, aliceChat)).toMatchObject({ status: 'failed', errorCode: 'model_endpoint_refused' });
      expect(workspaceModel.requests).toHaveLength(before);
      // Nor may anyone name loopback servers or model files now.
      for (const [modelSettings, field] of [
        [{ baseUrl: workspaceModel.url, model: 'alpha' }, 'modelSettings.baseUrl'],
        [{ provider: 'local-gguf', modelPath: '/models/tiny.gguf' }, 'modelSettings.modelPath'],
      ] as const) {
        const res = await api<{ error: { details: { issues: { path: string }[] } } }>(alice, 'PATCH', workspacePath(), {
          modelSettings,
        });
        expect([res.status, res.body.error.details.issues.map((issue) => issue.path)]).toEqual([400, [field]]);
      }
    } finally {
      await setInstance({ allowLocalModelServers: true });
    }
  });

  it('refuses members (403) and other workspaces (404) on every route, and bad input (400), changing nothing', async () => {
    const stored = async () => (await api<WorkspaceView>(alice, 'GET', workspacePath())).body;
    const before = await stored();
    for (const body of [
      { name: 'Bob’s now' },
      { timezone: 'UTC' },
      { modelSettings: { baseUrl: capture.url, model: 'x' } },
      { modelApiKey: 'sk-bob-0000' },
      { modelApiKey: null },
    ]) {
      const res = await api<{ error: { code: string } }>(bob, 'PATCH', workspacePath(), body);
      expect({ body, status: res.status, code: res.body.error.code }).toEqual({ body, status: 403, code: 'FORBIDDEN' });
    }
    for (const [method, path, body] of [
      ['GET', workspacePath(), undefined],
      ['PATCH', workspacePath(), { modelApiKey: 'sk-mallory-0000' }],
      ['GET', `${workspacePath()}/model/models`, undefined],
      ['POST', `${workspacePath()}/model/test`, {}],
      ['GET', `${workspacePath()}/model/local-servers`, undefined],
    ] as const) {
      const res = await api<{ error: { code: string } }>(mallory, method, path, body);
      expect({ path, status: res.status, code: res.body.error.code }).toEqual({ path, status: 404, code: 'NOT_FOUND' });
    }
    for (const [body, field] of [
      [{ timezone: 'Mars/Olympus_Mons' }, 'timezone'],
      [{ timezone: '+08:00' }, 'timezone'],
      [{ modelApiKey: 'sk with spaces' }, 'modelApiKey'],
      [{ modelSettings: { provider: 'local-gguf', modelPath: 'relative/model.gguf' } }, 'modelSettings.modelPath'],
      [{ modelSettings: { temperature: 3 } }, 'modelSettings.temperature'],
      [{ modelSettings: { provider: 'gpt' } }, 'modelSettings.provider'],
      [{ modelSettings: { model: 'm', apiKey: 'sk-in-the-wrong-place' } }, 'modelSettings'],
    ] as const) {
      const res = await api<{ error: { code: string; details: { issues: { path: string }[] } } }>(
        alice,
        'PATCH',
        workspacePath(),
        body,
      );
      expect([res.status, res.body.error.code, res.body.error.details.issues[0]?.path]).toEqual([
        400,
        'VALIDATION_FAILED',
        field,
      ]);
    }
    expect((await api(alice, 'PATCH', workspacePath(), {})).status).toBe(400);
    expect(await stored()).toEqual(before);

    // A key without an endpoint of its own would go wherever the host's model is: refused.
    const malloryPath = `/api/workspaces/${mallory.workspaceId}`;
    for (const [method, path, body] of [
      ['PATCH', malloryPath, { modelApiKey: 'sk-mallory-0000' }],
      ['PATCH', malloryPath, { modelSettings: { model: 'm' }, modelApiKey: 'sk-mallory-0000' }],
      ['POST', `${malloryPath}/model/test`, { modelApiKey: 'sk-mallory-0000' }],
    ] as const) {
      const res = await api<{ error: { details: { issues: { path: string }[] } } }>(mallory, method, path, body);
      expect([res.status, res.body.error.details.issues.map((issue) => issue.path)]).toEqual([400, ['modelApiKey']]);
    }
    expect((await api<WorkspaceView>(mallory, 'GET', malloryPath)).body.model).toMatchObject({ settings: {}, hasApiKey: false });
  });

  it('drops the key when the endpoint changes without a new one, and audits every change without the key', async () => {
    const moved = await api<WorkspaceView>(alice, 'PATCH', workspacePath(), {
      modelSettings: { provider: 'openai-chat', baseUrl: elsewhere.url, model: 'gamma' },
    });
    expect(moved.body.model).toMatchObject({ hasApiKey: false, apiKeyLast4: null, readiness: { usable: true } });
    expect(await run(alice, aliceChat)).toMatchObject({ status: 'completed', resultText: 'from elsewhere' });
    expect(elsewhere.requests.map((r) => r.headers['authorization'])).toEqual([undefined]);

    const removed = await api<WorkspaceView>(alice, 'PATCH', workspacePath(), {
      modelSettings: { provider: 'openai-chat', baseUrl: workspaceModel.url, model: 'alpha' },
      modelApiKey: SECRET,
    });
    expect(removed.body.model.hasApiKey).toBe(true);
    expect((await api<WorkspaceView>(alice, 'PATCH', workspacePath(), { modelApiKey: null })).body.model.hasApiKey).toBe(false);

    const client = new pg.Client({ connectionString: harness.database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ action: string; metadata: Record<string, unknown> }>(
        `SELECT action, metadata FROM "AuditLog" WHERE "workspaceId" = $1 AND action LIKE 'workspace.%' ORDER BY id`,
        [alice.workspaceId],
      );
      expect(rows.map((row) => row.action)).toEqual([
        'workspace.rename',
        'workspace.timezone_change',
        'workspace.model_settings_change',
        'workspace.model_key_set',
        // the wrong key, and the right one back
        'workspace.model_key_set',
        'workspace.model_key_set',
        'workspace.model_settings_change',
        'workspace.model_key_remove',
        'workspace.model_settings_change',
        'workspace.model_key_set',
        'workspace.model_key_remove',
      ]);
      expect(rows.find((row) => row.action === 'workspace.timezone_change')?.metadata).toEqual({
        timezone: 'Europe/Berlin',
        from: 'Asia/Taipei',
      });
      expect(rows.filter((row) => row.action === 'workspace.model_key_remove').map((row) => row.metadata)).toEqual([
        { reason: 'endpoint_changed' },
        { reason: 'removed' },
      ]);
    } finally {
      await client.end();
    }
  });

  it('treats a key that cannot be opened (vault key changed, damaged cipher) as none: no 500, and it can be removed', async () => {
    const other = await api<WorkspaceView>(alice, 'POST', '/api/workspaces', { name: 'Unreadable' });
    const path = `/api/workspaces/${other.body.id}`;
    const saved = await api<WorkspaceView>(alice, 'PATCH', path, {
      modelSettings: { provider: 'xai', model: 'grok-test' },
      modelApiKey: `xai-unreadable-${randomUUID()}`,
    });
    expect(saved.body.model).toMatchObject({ hasApiKey: true, apiKeyLast4: expect.any(String), readiness: { usable: true } });
    const client = new pg.Client({ connectionString: harness.database.url });
    await client.connect();
    try {
      // Sealed with another vault key: the right layout, a tag that does not match.
      await client.query(`UPDATE "Workspace" SET "modelApiKeyCipher" = $2 WHERE id = $1`, [
        other.body.id,
        Buffer.concat([Buffer.from([1]), Buffer.alloc(44, 7)]),
      ]);
    } finally {
      await client.end();
    }
    const view = await api<WorkspaceView>(alice, 'GET', path);
    expect(view.status).toBe(200);
    expect(view.body.model).toMatchObject({
      hasApiKey: true,
      apiKeyLast4: null,
      readiness: { usable: false, code: 'model_key_missing' },
    });
    const { agent, chatId } = await agentOf(alice, other.body.id);
    expect(agent.modelReadiness).toMatchObject({ usable: false, code: 'model_key_missing' });
    expect(await run(alice, chatId)).toMatchObject({ status: 'failed', errorCode: 'model_key_missing' });

    const removed = await api<WorkspaceView>(alice, 'PATCH', path, { modelApiKey: null });
    expect(removed.status).toBe(200);
    expect(removed.body.model).toMatchObject({ hasApiKey: false, apiKeyLast4: null });
  });

  it('never shows the key: not in any answer, log line, audit row or other row of the database', async () => {
    expect(answers.length).toBeGreaterThan(50);
    // The search sees the API's log: the runs that failed were logged.
    expect(printed.join('')).toContain('failed: no model provider is configured');
    // Nor the host's model server's address: the environment's endpoint is the operator's.
    expect(answers.filter((answer) => answer.includes(harness.model.url))).toEqual([]);
    for (const secret of [SECRET, AGENT_SECRET]) {
      expect(answers.filter((answer) => answer.includes(secret))).toEqual([]);
      expect(printed.filter((line) => line.includes(secret))).toEqual([]);
    }
    const client = new pg.Client({ connectionString: harness.database.url });
    await client.connect();
    try {
      const { rows: tables } = await client.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
      );
      const found: string[] = [];
      for (const { table_name: table } of tables) {
        const { rows } = await client.query<{ row: string }>(`SELECT t::text AS row FROM ${pg.escapeIdentifier(table)} t`);
        for (const { row } of rows) {
          if (row.includes(SECRET) || row.includes(AGENT_SECRET) || row.includes(SECRET.slice(3))) found.push(table);
        }
      }
      expect(found).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
