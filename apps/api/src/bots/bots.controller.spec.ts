import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { botViewSchema, type BotView } from '@lazyboy/contracts';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { SecretBox } from '../crypto/secret-box.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { sessionPrincipalOf } from '../testing/test-principal.js';
import { bearer, createApiToken, signUp, type TestUser } from '../testing/test-users.js';
import { BotsService } from './bots.service.js';

describe('agents (bots) over HTTP', () => {
  let api: TestApp;
  let prisma: PrismaService;
  let alice: TestUser;
  let mallory: TestUser;

  const http = () => request(api.url);
  const createBot = (member: TestUser, body: object) =>
    http().post(`/api/workspaces/${member.workspaceId}/bots`).set('Cookie', member.cookie).send(body);

  beforeAll(async () => {
    api = await startTestApp(testApiConfig());
    prisma = api.app.get(PrismaService);
    [alice, mallory] = await Promise.all([signUp(api.url), signUp(api.url)]);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('creates an agent with defaults and a random avatar seed, and lists them oldest first', async () => {
    const first = await createBot(alice, { name: '  Researcher ' });
    expect(first.status).toBe(201);
    const researcher = botViewSchema.parse(first.body);
    expect(researcher).toMatchObject({
      workspaceId: alice.workspaceId,
      name: 'Researcher',
      instructions: '',
      computerMode: 'team',
      modelSettings: {},
      hasModelApiKey: false,
    });
    expect(researcher.avatarSeed).toMatch(/^[0-9a-f]{16}$/);

    const second = await createBot(alice, {
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
    const other = await createBot(alice, { name: 'Third' });
    expect(other.body.avatarSeed).not.toBe(researcher.avatarSeed);

    const list = await http().get(`/api/workspaces/${alice.workspaceId}/bots`).set('Cookie', alice.cookie);
    expect(list.status).toBe(200);
    expect((list.body as BotView[]).map((bot) => bot.name)).toEqual(['Researcher', 'Writer', 'Third']);
  });

  it('answers 409 CONFLICT for a name already used in the workspace, on create and on rename', async () => {
    const name = `Dup ${randomUUID()}`;
    expect((await createBot(alice, { name })).status).toBe(201);
    const again = await createBot(alice, { name });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', reason: 'name_taken' });

    // Another workspace may use the same name.
    expect((await createBot(mallory, { name })).status).toBe(201);

    const other = await createBot(alice, { name: `Other ${randomUUID()}` });
    const rename = await http().patch(`/api/bots/${other.body.id}`).set('Cookie', alice.cookie).send({ name });
    expect(rename.status).toBe(409);
    expect(rename.body.error).toMatchObject({ code: 'CONFLICT', reason: 'name_taken' });
  });

  it('validates bodies and refuses an empty change', async () => {
    const missingName = await createBot(alice, {});
    expect(missingName.status).toBe(400);
    expect(missingName.body.error.code).toBe('VALIDATION_FAILED');
    expect((await createBot(alice, { name: 'x', unknown: 1 })).status).toBe(400);
    expect((await createBot(alice, { name: 'x', modelSettings: { temperature: 5 } })).status).toBe(400);

    const bot = await createBot(alice, { name: `Valid ${randomUUID()}` });
    const empty = await http().patch(`/api/bots/${bot.body.id}`).set('Cookie', alice.cookie).send({});
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('changes name, avatar, instructions, settings and mode, keeping settings the API does not show', async () => {
    const bot = (await createBot(alice, { name: `Editable ${randomUUID()}`, modelSettings: { model: 'a' } })).body as BotView;
    // Other parts of the service keep their own keys in the same JSON column.
    await prisma.bot.update({ where: { id: bot.id }, data: { modelSettings: { model: 'a', chatRoundLimit: 12 } } });

    const res = await http()
      .patch(`/api/bots/${bot.id}`)
      .set('Cookie', alice.cookie)
      .send({
        name: 'Renamed',
        avatarSeed: 'new-seed',
        instructions: 'Be kind.',
        computerMode: 'private',
        modelSettings: { provider: 'openai-chat', baseUrl: 'http://127.0.0.1:11434/v1', model: 'b' },
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: bot.id,
      name: 'Renamed',
      avatarSeed: 'new-seed',
      instructions: 'Be kind.',
      computerMode: 'private',
      modelSettings: { provider: 'openai-chat', baseUrl: 'http://127.0.0.1:11434/v1', model: 'b' },
    });
    const stored = await prisma.bot.findUniqueOrThrow({ where: { id: bot.id } });
    expect(stored.modelSettings).toEqual({
      provider: 'openai-chat',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'b',
      chatRoundLimit: 12,
    });

    const fetched = await http().get(`/api/bots/${bot.id}`).set('Cookie', alice.cookie);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(res.body);
  });

  it('stores a model API key encrypted, never returns it, and gives it back to the executor', async () => {
    const bot = (await createBot(alice, { name: `Keyed ${randomUUID()}` })).body as BotView;
    const secret = `sk-test-${randomUUID()}`;
    const res = await http().patch(`/api/bots/${bot.id}`).set('Cookie', alice.cookie).send({ modelApiKey: secret });
    expect(res.status).toBe(200);
    expect(res.body.hasModelApiKey).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(secret);
    const fetched = await http().get(`/api/bots/${bot.id}`).set('Cookie', alice.cookie);
    expect(JSON.stringify(fetched.body)).not.toContain(secret);
    const list = await http().get(`/api/workspaces/${alice.workspaceId}/bots`).set('Cookie', alice.cookie);
    expect(JSON.stringify(list.body)).not.toContain(secret);

    const stored = await prisma.bot.findUniqueOrThrow({ where: { id: bot.id } });
    expect(stored.modelApiKeyCipher).not.toBeNull();
    expect(Buffer.from(stored.modelApiKeyCipher!).toString('latin1')).not.toContain(secret);

    const service = api.app.get(BotsService);
    // What the run executor does with the row it claimed.
    expect(service.openModelKey(stored.modelApiKeyCipher)).toBe(secret);

    // Sealed with the model-keys key: no other purpose's key opens it.
    const config = api.app.get<ApiConfig>(API_CONFIG);
    expect(new SecretBox(config.LAZYBOY_VAULT_KEY, 'model-keys').open(stored.modelApiKeyCipher!)).toBe(secret);
    expect(() => new SecretBox(config.LAZYBOY_VAULT_KEY, 'computer-control-token').open(stored.modelApiKeyCipher!)).toThrow();

    const removed = await http().patch(`/api/bots/${bot.id}`).set('Cookie', alice.cookie).send({ modelApiKey: null });
    expect(removed.body.hasModelApiKey).toBe(false);
    const cleared = await prisma.bot.findUniqueOrThrow({ where: { id: bot.id } });
    expect(cleared.modelApiKeyCipher).toBeNull();
    expect(service.openModelKey(cleared.modelApiKeyCipher)).toBeUndefined();
  });

  it('deletes an agent (204), after which it is gone', async () => {
    const bot = (await createBot(alice, { name: `Doomed ${randomUUID()}` })).body as BotView;
    const res = await http().delete(`/api/bots/${bot.id}`).set('Cookie', alice.cookie);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await http().get(`/api/bots/${bot.id}`).set('Cookie', alice.cookie)).status).toBe(404);
    expect((await http().delete(`/api/bots/${bot.id}`).set('Cookie', alice.cookie)).status).toBe(404);
  });

  it("answers another workspace's agents and workspace exactly like missing ones: 404 NOT_FOUND", async () => {
    const bot = (await createBot(alice, { name: `Private ${randomUUID()}` })).body as BotView;
    const foreignId = bot.id;
    const missingId = randomUUID();
    for (const id of [foreignId, missingId, 'not-a-uuid']) {
      const attempts = [
        http().get(`/api/bots/${id}`),
        http().patch(`/api/bots/${id}`).send({ name: 'Stolen' }),
        http().delete(`/api/bots/${id}`),
      ];
      for (const attempt of attempts) {
        const res = await attempt.set('Cookie', mallory.cookie);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    }
    for (const workspaceId of [alice.workspaceId, randomUUID()]) {
      const list = await http().get(`/api/workspaces/${workspaceId}/bots`).set('Cookie', mallory.cookie);
      expect(list.status).toBe(404);
      expect(list.body.error.code).toBe('NOT_FOUND');
      const create = await http().post(`/api/workspaces/${workspaceId}/bots`).set('Cookie', mallory.cookie).send({ name: 'x' });
      expect(create.status).toBe(404);
    }

    // Nothing changed for the owner, and the service's own lookup agrees.
    const still = await http().get(`/api/bots/${foreignId}`).set('Cookie', alice.cookie);
    expect(still.body.name).toBe(bot.name);
    const service = api.app.get(BotsService);
    await expect(service.getForPrincipal(sessionPrincipalOf(mallory), foreignId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.getForPrincipal(sessionPrincipalOf(alice), foreignId)).resolves.toEqual(still.body);
  });

  it('limits an API token bound to one workspace to that workspace', async () => {
    const bot = (await createBot(alice, { name: `Scoped ${randomUUID()}` })).body as BotView;
    const second = await http().post('/api/workspaces').set('Cookie', alice.cookie).send({ name: 'Second' }).expect(201);
    const otherBot = await http()
      .post(`/api/workspaces/${second.body.id}/bots`)
      .set('Cookie', alice.cookie)
      .send({ name: 'Elsewhere' })
      .expect(201);
    const token = await createApiToken(api.url, alice.cookie, second.body.id);

    expect((await http().get(`/api/bots/${bot.id}`).set(bearer(token))).status).toBe(404);
    expect((await http().get(`/api/workspaces/${alice.workspaceId}/bots`).set(bearer(token))).status).toBe(404);
    // The token still works in its own workspace, and an unbound token of the same user sees both.
    expect((await http().get(`/api/bots/${otherBot.body.id}`).set(bearer(token))).status).toBe(200);
    const list = await http().get(`/api/workspaces/${second.body.id}/bots`).set(bearer(token)).expect(200);
    expect((list.body as BotView[]).map((b) => b.id)).toEqual([otherBot.body.id]);
    const everywhere = await createApiToken(api.url, alice.cookie);
    expect((await http().get(`/api/bots/${bot.id}`).set(bearer(everywhere))).status).toBe(200);
  });
});
