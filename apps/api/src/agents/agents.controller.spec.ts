import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { agentViewSchema, type AgentView } from '@lazyboy/contracts';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { SecretBox } from '../crypto/secret-box.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { sessionPrincipalOf } from '../testing/test-principal.js';
import { bearer, createApiToken, signUp, type TestUser } from '../../../../test/support/index.js';
import { ModelKeys } from '../model/model-keys.js';
import { AgentsService } from './agents.service.js';

describe('agents over HTTP', () => {
  let api: TestApp;
  let prisma: PrismaService;
  let alice: TestUser;
  let mallory: TestUser;

  const http = () => request(api.url);
  const createAgent = (member: TestUser, body: object) =>
    http().post(`/api/workspaces/${member.workspaceId}/agents`).set('Cookie', member.cookie).send(body);

  beforeAll(async () => {
    api = await startTestApp(testApiConfig());
    prisma = api.app.get(PrismaService);
    [alice, mallory] = await Promise.all([signUp(api.url), signUp(api.url)]);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('creates an agent with defaults and a random avatar seed, and lists them oldest first', async () => {
    const first = await createAgent(alice, { name: '  Researcher ' });
    expect(first.status).toBe(201);
    const researcher = agentViewSchema.parse(first.body);
    expect(researcher).toMatchObject({
      workspaceId: alice.workspaceId,
      name: 'Researcher',
      instructions: '',
      computerMode: 'team',
      modelSettings: {},
      hasModelApiKey: false,
      modelApiKeyLast4: null,
    });
    expect(researcher.avatarSeed).toMatch(/^[0-9a-f]{16}$/);

    const second = await createAgent(alice, {
      name: 'Writer',
      avatarSeed: 'blob-7',
      instructions: 'Write briefly.',
      computerMode: 'private',
      modelSettings: { provider: 'xai', model: 'grok-4', temperature: 0.2 },
    });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({
      avatarSeed: 'blob-7',
      instructions: 'Write briefly.',
      computerMode: 'private',
      modelSettings: { provider: 'xai', model: 'grok-4', temperature: 0.2 },
    });
    const other = await createAgent(alice, { name: 'Third' });
    expect(other.body.avatarSeed).not.toBe(researcher.avatarSeed);

    const list = await http().get(`/api/workspaces/${alice.workspaceId}/agents`).set('Cookie', alice.cookie);
    expect(list.status).toBe(200);
    expect((list.body as AgentView[]).map((agent) => agent.name)).toEqual(['Researcher', 'Writer', 'Third']);
  });

  it('answers 409 CONFLICT for a name already used in the workspace, on create and on rename', async () => {
    const name = `Dup ${randomUUID()}`;
    expect((await createAgent(alice, { name })).status).toBe(201);
    const again = await createAgent(alice, { name });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', reason: 'name_taken' });

    // Another workspace may use the same name.
    expect((await createAgent(mallory, { name })).status).toBe(201);

    const other = await createAgent(alice, { name: `Other ${randomUUID()}` });
    const rename = await http().patch(`/api/agents/${other.body.id}`).set('Cookie', alice.cookie).send({ name });
    expect(rename.status).toBe(409);
    expect(rename.body.error).toMatchObject({ code: 'CONFLICT', reason: 'name_taken' });
  });

  it('validates bodies and refuses an empty change', async () => {
    const missingName = await createAgent(alice, {});
    expect(missingName.status).toBe(400);
    expect(missingName.body.error.code).toBe('VALIDATION_FAILED');
    expect((await createAgent(alice, { name: 'x', unknown: 1 })).status).toBe(400);
    expect((await createAgent(alice, { name: 'x', modelSettings: { temperature: 5 } })).status).toBe(400);

    const agent = await createAgent(alice, { name: `Valid ${randomUUID()}` });
    const empty = await http().patch(`/api/agents/${agent.body.id}`).set('Cookie', alice.cookie).send({});
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('changes name, avatar, instructions, settings and mode, keeping settings the API does not show', async () => {
    const agent = (await createAgent(alice, { name: `Editable ${randomUUID()}`, modelSettings: { model: 'a' } }))
      .body as AgentView;
    // Other parts of the service keep their own keys in the same JSON column.
    await prisma.agent.update({ where: { id: agent.id }, data: { modelSettings: { model: 'a', chatRoundLimit: 12 } } });

    const res = await http()
      .patch(`/api/agents/${agent.id}`)
      .set('Cookie', alice.cookie)
      .send({
        name: 'Renamed',
        avatarSeed: 'new-seed',
        instructions: 'Be kind.',
        computerMode: 'private',
        modelSettings: { provider: 'openai-chat', baseUrl: 'http://models.example.net:11434/v1', model: 'b' },
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: agent.id,
      name: 'Renamed',
      avatarSeed: 'new-seed',
      instructions: 'Be kind.',
      computerMode: 'private',
      modelSettings: { provider: 'openai-chat', baseUrl: 'http://models.example.net:11434/v1', model: 'b' },
    });
    const stored = await prisma.agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(stored.modelSettings).toEqual({
      provider: 'openai-chat',
      baseUrl: 'http://models.example.net:11434/v1',
      model: 'b',
      chatRoundLimit: 12,
    });

    const fetched = await http().get(`/api/agents/${agent.id}`).set('Cookie', alice.cookie);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(res.body);
  });

  it('stores a model API key encrypted, never returns it, and gives it back to the executor', async () => {
    // A key needs the agent's own endpoint (here xAI's service).
    const agent = (await createAgent(alice, { name: `Keyed ${randomUUID()}`, modelSettings: { provider: 'xai' } }))
      .body as AgentView;
    const secret = `sk-test-${randomUUID()}`;
    const res = await http().patch(`/api/agents/${agent.id}`).set('Cookie', alice.cookie).send({ modelApiKey: secret });
    expect(res.status).toBe(200);
    expect(res.body.hasModelApiKey).toBe(true);
    // The owner recognises the key by its last four characters; the key itself never comes back.
    expect(res.body.modelApiKeyLast4).toBe(secret.slice(-4));
    expect(JSON.stringify(res.body)).not.toContain(secret);
    const fetched = await http().get(`/api/agents/${agent.id}`).set('Cookie', alice.cookie);
    expect(JSON.stringify(fetched.body)).not.toContain(secret);
    const list = await http().get(`/api/workspaces/${alice.workspaceId}/agents`).set('Cookie', alice.cookie);
    expect(JSON.stringify(list.body)).not.toContain(secret);

    const stored = await prisma.agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(stored.modelApiKeyCipher).not.toBeNull();
    expect(Buffer.from(stored.modelApiKeyCipher!).toString('latin1')).not.toContain(secret);

    const keys = api.app.get(ModelKeys);
    // What the run executor does with the row it claimed.
    expect(keys.open(stored.modelApiKeyCipher)).toBe(secret);

    // Sealed with the model-keys key: no other purpose's key opens it.
    const config = api.app.get<ApiConfig>(API_CONFIG);
    expect(new SecretBox(config.LAZYBOY_VAULT_KEY, 'model-keys').open(stored.modelApiKeyCipher!)).toBe(secret);
    expect(() => new SecretBox(config.LAZYBOY_VAULT_KEY, 'computer-control-token').open(stored.modelApiKeyCipher!)).toThrow();

    const removed = await http().patch(`/api/agents/${agent.id}`).set('Cookie', alice.cookie).send({ modelApiKey: null });
    expect(removed.body.hasModelApiKey).toBe(false);
    expect(removed.body.modelApiKeyLast4).toBeNull();
    const cleared = await prisma.agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(cleared.modelApiKeyCipher).toBeNull();
    expect(keys.open(cleared.modelApiKeyCipher)).toBeUndefined();
  });

  describe('model settings and keys', () => {
    let bob: TestUser;
    let carol: TestUser;
    const patch = (user: TestUser, agentId: string, body: object) =>
      http().patch(`/api/agents/${agentId}`).set('Cookie', user.cookie).send(body);
    const stored = (agentId: string) => prisma.agent.findUniqueOrThrow({ where: { id: agentId } });
    /** Creates an agent in Alice's workspace as `user`. */
    const createInAlices = (user: TestUser, body: object) =>
      http().post(`/api/workspaces/${alice.workspaceId}/agents`).set('Cookie', user.cookie).send(body);
    const keyOf = async (agentId: string) => api.app.get(ModelKeys).open((await stored(agentId)).modelApiKeyCipher);

    /** An agent of Alice's with settings and a key of its own. */
    async function keyedAgent(
      modelSettings: object = { provider: 'openai-chat', baseUrl: 'https://models.example.net/v1', model: 'm' },
    ) {
      const agent = (await createAgent(alice, { name: `Keyed ${randomUUID()}`, modelSettings })).body as AgentView;
      expect((await patch(alice, agent.id, { modelApiKey: 'sk-original' })).status).toBe(200);
      return agent;
    }

    beforeAll(async () => {
      [bob, carol] = await Promise.all([signUp(api.url), signUp(api.url)]);
      for (const [user, role] of [
        [bob, 'member'],
        [carol, 'admin'],
      ] as const) {
        await http()
          .post(`/api/workspaces/${alice.workspaceId}/members`)
          .set('Cookie', alice.cookie)
          .send({ email: user.email, role })
          .expect(201);
      }
    });

    it('lets only owners and admins change model settings or the key: a member gets 403 and nothing changes', async () => {
      const agent = await keyedAgent();
      const before = await stored(agent.id);
      const attempts = [
        { modelSettings: { baseUrl: 'https://attacker.example/v1' } },
        { modelSettings: { provider: 'openai-chat', baseUrl: 'https://models.example.net/v1', model: 'other' } },
        { modelSettings: { temperature: 1 } },
        { modelSettings: {} },
        { modelApiKey: 'sk-bob' },
        { modelApiKey: null },
        { name: 'Renamed by Bob', modelSettings: { baseUrl: 'https://attacker.example/v1' }, modelApiKey: 'sk-bob' },
      ];
      for (const body of attempts) {
        const res = await patch(bob, agent.id, body);
        expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 403, code: 'FORBIDDEN' });
        expect(res.body.error.message).toContain('admin or owner role');
      }
      const name = `Bob's keyed ${randomUUID()}`;
      const create = await createInAlices(bob, { name, modelSettings: { baseUrl: 'https://attacker.example/v1' } });
      expect(create.status).toBe(403);
      expect(await prisma.agent.count({ where: { name } })).toBe(0);

      const after = await stored(agent.id);
      expect(after).toEqual(before);
      expect(await keyOf(agent.id)).toBe('sk-original');

      // Everything else a member could edit stays editable, and an admin may change the settings.
      const renamed = await patch(bob, agent.id, { name: `Bob's name ${randomUUID()}`, instructions: 'Be brief.' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.hasModelApiKey).toBe(true);
      // A member is not told any of the key's characters.
      expect(renamed.body.modelApiKeyLast4).toBeNull();
      // Nor the agent's base URL (it can name a machine on the owner's LAN), in any view of it.
      const memberViews = [
        renamed.body as AgentView,
        (await http().get(`/api/agents/${agent.id}`).set('Cookie', bob.cookie).expect(200)).body as AgentView,
        ...((await http().get(`/api/workspaces/${alice.workspaceId}/agents`).set('Cookie', bob.cookie).expect(200))
          .body as AgentView[]),
      ];
      for (const view of memberViews) expect(view.modelSettings.baseUrl).toBeUndefined();
      expect(memberViews[1]!.modelSettings).toEqual({ provider: 'openai-chat', model: 'm' });
      expect(memberViews[1]!.modelReadiness.source).toBe('agent');
      const byOwner = (await http().get(`/api/agents/${agent.id}`).set('Cookie', alice.cookie).expect(200)).body as AgentView;
      expect(byOwner.modelSettings.baseUrl).toBe('https://models.example.net/v1');
      expect((await createInAlices(bob, { name: `Bob's own ${randomUUID()}`, modelSettings: {} })).status).toBe(201);
      const byAdmin = await patch(carol, agent.id, {
        modelSettings: { provider: 'xai', model: 'carol' },
        modelApiKey: 'sk-carol',
      });
      expect(byAdmin.status).toBe(200);
      expect(await keyOf(agent.id)).toBe('sk-carol');
    });

    it('drops the stored key when the provider or base URL changes, unless the same request brings one', async () => {
      const agent = await keyedAgent();
      const at = (baseUrl: string, more: object = {}) => ({ provider: 'openai-chat', baseUrl, model: 'm', ...more });
      // Same endpoint (written another way), other model and temperature: the key stays.
      let res = await patch(alice, agent.id, {
        modelSettings: at('https://MODELS.example.net:443/v1/', { model: 'm2', temperature: 0.3 }),
      });
      expect(res.body.hasModelApiKey).toBe(true);
      expect(await keyOf(agent.id)).toBe('sk-original');
      // Another base URL: gone, from the view and from the row.
      res = await patch(alice, agent.id, { modelSettings: at('https://elsewhere.example/v1') });
      expect(res.status).toBe(200);
      expect(res.body.hasModelApiKey).toBe(false);
      expect((await stored(agent.id)).modelApiKeyCipher).toBeNull();
      // Another provider at the same base URL: gone too.
      await patch(alice, agent.id, { modelApiKey: 'sk-two' }).expect(200);
      res = await patch(alice, agent.id, {
        modelSettings: { provider: 'xai', baseUrl: 'https://elsewhere.example/v1', model: 'm' },
      });
      expect(res.body.hasModelApiKey).toBe(false);
      // Settings cleared entirely: the endpoint is now the workspace's or the environment's, not the key's.
      await patch(alice, agent.id, { modelApiKey: 'sk-three' }).expect(200);
      expect((await patch(alice, agent.id, { modelSettings: {} })).body.hasModelApiKey).toBe(false);
      // A key in the same request is the new endpoint's key; null removes it.
      res = await patch(alice, agent.id, { modelSettings: at('https://third.example/v1'), modelApiKey: 'sk-third' });
      expect(res.body.hasModelApiKey).toBe(true);
      expect(await keyOf(agent.id)).toBe('sk-third');
      res = await patch(alice, agent.id, { modelSettings: at('https://fourth.example/v1'), modelApiKey: null });
      expect(res.body.hasModelApiKey).toBe(false);
    });

    it('refuses base URLs at loopback, link-local, metadata or cluster services (400 naming the field), changing nothing', async () => {
      const agent = await keyedAgent();
      const before = await stored(agent.id);
      const refused = [
        'http://127.0.0.1:11434/v1',
        'http://localhost:3100/api',
        'http://[::1]:11434/v1',
        'http://[::ffff:127.0.0.1]:3100/',
        'http://0.0.0.0:3100/',
        'http://169.254.169.254/latest/meta-data',
        'http://[fe80::1]/v1',
        'http://redis.lazyboy.svc.cluster.local:6379/',
        'file:///etc/passwd',
      ];
      for (const baseUrl of refused) {
        for (const res of [
          await patch(alice, agent.id, { modelSettings: { baseUrl } }),
          await createAgent(alice, { name: `Refused ${randomUUID()}`, modelSettings: { baseUrl } }),
        ]) {
          expect({ baseUrl, status: res.status, code: res.body.error?.code }).toEqual({
            baseUrl,
            status: 400,
            code: 'VALIDATION_FAILED',
          });
          expect(res.body.error.details.issues).toEqual([
            { path: 'modelSettings.baseUrl', message: expect.stringMatching(/^the base URL /) },
          ]);
          expect(res.body.error.message).toMatch(/^invalid body: modelSettings\.baseUrl: the base URL /);
        }
      }
      expect(await stored(agent.id)).toEqual(before);
      // A model server elsewhere on the LAN is fine (a home user's Ollama on another machine).
      const lan = await patch(alice, agent.id, {
        modelSettings: { baseUrl: 'http://models.example.net:11434/v1' },
        modelApiKey: 'sk-lan',
      });
      expect(lan.status).toBe(200);
    });
  });

  it('deletes an agent (204), after which it is gone', async () => {
    const agent = (await createAgent(alice, { name: `Doomed ${randomUUID()}` })).body as AgentView;
    const res = await http().delete(`/api/agents/${agent.id}`).set('Cookie', alice.cookie);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await http().get(`/api/agents/${agent.id}`).set('Cookie', alice.cookie)).status).toBe(404);
    expect((await http().delete(`/api/agents/${agent.id}`).set('Cookie', alice.cookie)).status).toBe(404);
  });

  it("answers another workspace's agents and workspace exactly like missing ones: 404 NOT_FOUND", async () => {
    const agent = (await createAgent(alice, { name: `Private ${randomUUID()}` })).body as AgentView;
    const foreignId = agent.id;
    const missingId = randomUUID();
    for (const id of [foreignId, missingId, 'not-a-uuid']) {
      const attempts = [
        http().get(`/api/agents/${id}`),
        http().patch(`/api/agents/${id}`).send({ name: 'Stolen' }),
        http().delete(`/api/agents/${id}`),
      ];
      for (const attempt of attempts) {
        const res = await attempt.set('Cookie', mallory.cookie);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    }
    for (const workspaceId of [alice.workspaceId, randomUUID()]) {
      const list = await http().get(`/api/workspaces/${workspaceId}/agents`).set('Cookie', mallory.cookie);
      expect(list.status).toBe(404);
      expect(list.body.error.code).toBe('NOT_FOUND');
      const create = await http().post(`/api/workspaces/${workspaceId}/agents`).set('Cookie', mallory.cookie).send({ name: 'x' });
      expect(create.status).toBe(404);
    }

    // Nothing changed for the owner, and the service's own lookup agrees.
    const still = await http().get(`/api/agents/${foreignId}`).set('Cookie', alice.cookie);
    expect(still.body.name).toBe(agent.name);
    const service = api.app.get(AgentsService);
    await expect(service.getForPrincipal(sessionPrincipalOf(mallory), foreignId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.getForPrincipal(sessionPrincipalOf(alice), foreignId)).resolves.toEqual(still.body);
  });

  it('limits an API token bound to one workspace to that workspace', async () => {
    const agent = (await createAgent(alice, { name: `Scoped ${randomUUID()}` })).body as AgentView;
    const second = await http().post('/api/workspaces').set('Cookie', alice.cookie).send({ name: 'Second' }).expect(201);
    const otherAgent = await http()
      .post(`/api/workspaces/${second.body.id}/agents`)
      .set('Cookie', alice.cookie)
      .send({ name: 'Elsewhere' })
      .expect(201);
    const token = await createApiToken(api.url, alice.cookie, second.body.id);

    expect((await http().get(`/api/agents/${agent.id}`).set(bearer(token))).status).toBe(404);
    expect((await http().get(`/api/workspaces/${alice.workspaceId}/agents`).set(bearer(token))).status).toBe(404);
    // The token still works in its own workspace, and an unbound token of the same user sees both.
    expect((await http().get(`/api/agents/${otherAgent.body.id}`).set(bearer(token))).status).toBe(200);
    const list = await http().get(`/api/workspaces/${second.body.id}/agents`).set(bearer(token)).expect(200);
    expect((list.body as AgentView[]).map((b) => b.id)).toEqual([otherAgent.body.id]);
    const everywhere = await createApiToken(api.url, alice.cookie);
    expect((await http().get(`/api/agents/${agent.id}`).set(bearer(everywhere))).status).toBe(200);
  });
});
