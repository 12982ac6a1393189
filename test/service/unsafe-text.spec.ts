import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { z } from 'zod';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { INTERNAL_SECRET_HEADER, LONE_SURROGATE_MESSAGE, NUL_CHARACTER_MESSAGE } from '@lazyboy/contracts';
import { routeSchemas } from '../../apps/api/src/common/route-docs.js';
import { collectApiRoutes, type ApiRoute } from '../../apps/api/src/openapi/api-routes.js';
import { startTestApp, type TestApp } from '../../apps/api/src/testing/test-app.js';
import { TEST_INTERNAL_SECRET, testApiConfig } from '../../apps/api/src/testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../../apps/api/src/testing/test-database.js';
import { logInFirstAdmin, signUp, type TestUser } from '../support/index.js';

// Table-driven: every route that takes a body or a query gets, in each of its text fields in turn, a NUL
// and (bodies) an unpaired surrogate, and must answer 400 VALIDATION_FAILED naming exactly that field —
// never a 500 from Postgres — with nothing changed in the database. Each row is otherwise a valid input, so
// without the refusal the request would go through. A new route with an input fails until it has a row, and
// a new text field fails until its row fills it.

// Its own address per suite: the per-account sign-in limit lives in the one Redis every suite shares.
const ADMIN_EMAIL = `root-${randomUUID().slice(0, 8)}@example.test`;
const APP_TOKEN = `app-token-${randomUUID()}`;

interface Ids {
  workspaceId: string;
  agentId: string;
  chatId: string;
  runId: string;
  /** Another user, member of the admin's workspace. */
  userId: string;
  tokenId: string;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
interface Input {
  body?: Record<string, Json>;
  query?: Record<string, string>;
}

/** A valid input for every route that takes one, keyed `METHOD path`; every text field filled. */
function inputs(ids: Ids, other: TestUser): Record<string, Input> {
  const page = { query: { before: randomUUID(), limit: '10' } };
  const workspaceModel = {
    provider: 'local-gguf',
    baseUrl: 'http://192.0.2.1/v1',
    model: 'm',
    temperature: 0.5,
    modelPath: '/models/m.gguf',
  };
  const vaultAccount = {
    site: 'https://bank.example',
    username: 'ada',
    password: 'a password',
    totp: 'JBSWY3DPEHPK3PXP',
    label: 'the bank',
    notes: 'a note',
  };
  const vaultImport = { csv: 'name,url,username,password\nbank,https://bank.example,ada,a password\n' };
  return {
    'GET /api/admin/audit': { query: { action: 'login', workspaceId: ids.workspaceId, limit: '10' } },
    'GET /api/admin/computers': { query: { workspaceId: ids.workspaceId, limit: '10' } },
    'GET /api/admin/runs': { query: { status: 'queued', workspaceId: ids.workspaceId, agentId: ids.agentId, limit: '10' } },
    'GET /api/admin/users': page,
    'PATCH /api/admin/users/:userId': { body: { isAdmin: true, disabled: true } },
    'PATCH /api/admin/settings': {
      body: { allowLocalModelServers: false, signupPolicy: 'open', environmentModelScope: 'all_workspaces' },
    },
    'GET /api/admin/workspaces': page,
    'PATCH /api/admin/workspaces/:workspaceId/members/:userId': { body: { role: 'owner' } },
    'POST /api/auth/login': { body: { email: other.email, password: other.password } },
    'POST /api/auth/signup': {
      body: {
        email: `new-${randomUUID()}@example.test`,
        password: 'a password',
        displayName: 'New',
        invitationToken: 'a'.repeat(43),
      },
    },
    'POST /api/auth/tokens': { body: { name: 'a token', workspaceId: ids.workspaceId, expiresInDays: 3 } },
    'PATCH /api/agents/:agentId': {
      body: {
        name: 'renamed',
        avatarSeed: 'seed',
        instructions: 'be brief',
        computerMode: 'private',
        modelSettings: { provider: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', temperature: 0.5 },
        modelApiKey: 'sk-new',
      },
    },
    'POST /api/agents/:agentId/computer/type': { body: { text: 'typed' } },
    'POST /api/agents/:agentId/computer/viewer-ticket': { body: { mode: 'control' } },
    'POST /api/agents/:agentId/chats': { body: { title: 'a chat' } },
    'POST /api/runs/:runId/answer': { body: { text: 'an answer' } },
    'GET /api/runs/:runId/events': { query: { after: '0', limit: '10' } },
    'PATCH /api/chats/:chatId': { body: { title: 'renamed' } },
    'GET /api/chats/:chatId/messages': page,
    'POST /api/chats/:chatId/messages': { body: { text: 'hello', clientNonce: `nonce-${randomUUID()}` } },
    'POST /api/viewer/control-check': { body: { holds: [{ screenId: randomUUID(), userId: ids.userId }] } },
    'POST /api/viewer/redeem': { body: { ticket: 'a-ticket' } },
    'POST /api/workspaces': { body: { name: 'another' } },
    'PATCH /api/workspaces/:workspaceId': {
      body: { name: 'renamed', timezone: 'UTC', modelSettings: workspaceModel, modelApiKey: 'sk-new' },
    },
    'GET /api/workspaces/:workspaceId/model/models': { query: { provider: 'openai-chat', baseUrl: 'http://192.0.2.1/v1' } },
    'POST /api/workspaces/:workspaceId/model/test': { body: { modelSettings: workspaceModel, modelApiKey: 'sk-test' } },
    'POST /api/workspaces/:workspaceId/agents': {
      body: {
        name: 'an agent',
        avatarSeed: 'seed',
        instructions: 'be kind',
        computerMode: 'team',
        modelSettings: { provider: 'xai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', temperature: 1 },
      },
    },
    'POST /api/workspaces/:workspaceId/members': { body: { email: other.email, role: 'admin' } },
    'POST /api/workspaces/:workspaceId/invitations': {
      body: { email: `invited-${randomUUID()}@example.test`, role: 'admin', expiresInDays: 3 },
    },
    'PATCH /api/workspaces/:workspaceId/members/:userId': { body: { role: 'owner' } },
    'POST /api/agents/:agentId/vault': { body: vaultAccount },
    'POST /api/agents/:agentId/vault/import': { body: vaultImport },
    'POST /api/workspaces/:workspaceId/vault': { body: vaultAccount },
    'POST /api/workspaces/:workspaceId/vault/import': { body: vaultImport },
    'PATCH /api/vault/:accountId': { body: vaultAccount },
    'PUT /api/vault/:accountId/agents': { body: { agentIds: [ids.agentId] } },
    'POST /api/vault/:accountId/reveal': { body: { password: 'my sign-in password' } },
  };
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

/** Dotted paths of the text fields a body schema accepts (array items as index 0). */
function textFieldsOf(schema: JsonSchema, prefix: string[] = []): string[] {
  const here = schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
  return [
    ...new Set([
      ...(here ? [prefix.join('.')] : []),
      ...Object.entries(schema.properties ?? {}).flatMap(([key, child]) => textFieldsOf(child, [...prefix, key])),
      ...(schema.items ? textFieldsOf(schema.items, [...prefix, '0']) : []),
      ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((option) => textFieldsOf(option, prefix)),
    ]),
  ];
}

/** Dotted paths of the strings in a value. */
function stringLeaves(value: Json, prefix: string[] = []): string[] {
  if (typeof value === 'string') return [prefix.join('.')];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringLeaves(item, [...prefix, String(i)]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...prefix, k]));
  return [];
}

/** A copy of `value` with the string at `path` turned into `poison(string)`. */
function poisoned(value: Record<string, Json>, path: string, poison: (text: string) => string): Record<string, Json> {
  const copy = structuredClone(value);
  const keys = path.split('.');
  let at = copy as Record<string, Json>;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, Json>;
  const last = keys.at(-1)!;
  at[last] = poison(at[last] as string);
  return copy;
}

const POISONS = [
  { name: 'a NUL', apply: (text: string) => `${text}\u0000x`, message: NUL_CHARACTER_MESSAGE },
  { name: 'an unpaired surrogate', apply: (text: string) => `${text}\uD83D`, message: LONE_SURROGATE_MESSAGE },
];

/** Every row of every public table (bar the sign-in timestamps a request may move), as one text per table. */
async function databaseFingerprint(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string; columns: string[] }>(
      `SELECT table_name, array_agg(column_name::text ORDER BY ordinal_position) AS columns
         FROM information_schema.columns
        WHERE table_schema = 'public'
          AND (table_name, column_name) NOT IN (('LoginSession', 'lastSeenAt'), ('ApiToken', 'lastUsedAt'))
        GROUP BY table_name`,
    );
    const fingerprint: Record<string, string> = {};
    for (const { table_name: table, columns } of rows) {
      const row = columns.map((c) => pg.escapeIdentifier(c)).join(', ');
      const { rows: digest } = await client.query<{ rows: string }>(
        `SELECT count(*) || ':' || md5(coalesce(string_agg(r, '|' ORDER BY r), '')) AS rows
           FROM (SELECT ROW(${row})::text AS r FROM ${pg.escapeIdentifier(table)}) t`,
      );
      fingerprint[table] = digest[0]!.rows;
    }
    return fingerprint;
  } finally {
    await client.end();
  }
}

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

describe('text that cannot be stored (NUL, unpaired surrogates)', () => {
  let database: IsolatedDatabase;
  let api: TestApp;
  let adminCookie: string;
  let other: TestUser;
  let ids: Ids;
  let routes: ApiRoute[];

  beforeAll(async () => {
    database = await createIsolatedDatabase();
    // No executor: the run stays queued; LAZYBOY_APP_TOKEN makes the first user an admin (admin routes too).
    api = await startTestApp(
      testApiConfig({ DATABASE_URL: database.url, LAZYBOY_APP_TOKEN: APP_TOKEN, LAZYBOY_ADMIN_EMAIL: ADMIN_EMAIL }),
    );
    adminCookie = await logInFirstAdmin(api.url, ADMIN_EMAIL, APP_TOKEN);
    const as = (path: string, body: object) => request(api.url).post(path).set('Cookie', adminCookie).send(body);
    const me = await request(api.url).get('/api/auth/me').set('Cookie', adminCookie).expect(200);
    const workspaceId: string = me.body.workspaces[0].id;
    other = await signUp(api.url);
    await as(`/api/workspaces/${workspaceId}/members`, { email: other.email, role: 'member' }).expect(201);
    const agent = await as(`/api/workspaces/${workspaceId}/agents`, { name: 'the agent' }).expect(201);
    const chat = await as(`/api/agents/${agent.body.id}/chats`, { title: 'the chat' }).expect(201);
    const posted = await as(`/api/chats/${chat.body.id}/messages`, {
      text: 'start',
      clientNonce: `nonce-${randomUUID()}`,
    }).expect(202);
    const token = await as('/api/auth/tokens', { name: 'the token' }).expect(201);
    ids = {
      workspaceId,
      agentId: agent.body.id,
      chatId: chat.body.id,
      runId: posted.body.run.id,
      userId: other.userId,
      tokenId: token.body.id,
    };
    routes = collectApiRoutes(new DiscoveryService(api.app.get(ModulesContainer)), new MetadataScanner(), new Reflector());
  });
  afterAll(async () => {
    await api?.close();
    await database?.drop();
  });

  const key = (route: ApiRoute) => `${route.method} ${route.path}`;
  const withInput = () => routes.filter((route) => routeSchemas(route.handler).body || routeSchemas(route.handler).query);
  const fill = (route: ApiRoute) =>
    route.params.reduce((path, param) => {
      const id = param === 'id' ? ids.tokenId : (ids as unknown as Record<string, string | undefined>)[param];
      return path.replace(`:${param}`, id ?? randomUUID());
    }, route.path);

  it('has a valid input filling every text field for every route that takes one', () => {
    const table = inputs(ids, other);
    expect(withInput().length).toBeGreaterThan(20);
    const problems = withInput().flatMap((route) => {
      const row = table[key(route)];
      if (!row) return [`${key(route)}: no row`];
      const { body, query } = routeSchemas(route.handler);
      const found: string[] = [];
      for (const [where, schema, value] of [
        ['body', body, row.body],
        ['query', query, row.query],
      ] as const) {
        if (!schema) {
          if (value) found.push(`${key(route)}: takes no ${where}`);
          continue;
        }
        const parsed = schema.safeParse(value ?? {});
        if (!parsed.success) found.push(`${key(route)} ${where}: ${parsed.error.message}`);
        const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
        // On the wire every query parameter is text.
        const fields = where === 'query' ? Object.keys(json.properties ?? {}) : textFieldsOf(json);
        const filled = new Set(stringLeaves((value ?? {}) as Json));
        found.push(...fields.filter((f) => !filled.has(f)).map((f) => `${key(route)} ${where}: ${f} is not filled`));
      }
      return found;
    });
    expect(problems).toEqual([]);
    const known = new Set(withInput().map(key));
    expect(Object.keys(table).filter((k) => !known.has(k))).toEqual([]);
  });

  it('answers 400 naming the field, on every route and text field, and changes nothing', async () => {
    const table = inputs(ids, other);
    const before = await databaseFingerprint(database.url);
    const wrong: unknown[] = [];
    let calls = 0;
    for (const route of withInput()) {
      const row = table[key(route)]!;
      const send = (body: object | undefined, query: Record<string, string> | undefined) => {
        const search = query ? `?${new URLSearchParams(query).toString()}` : '';
        let call = request(api.url)
          [route.method.toLowerCase() as Method](`${fill(route)}${search}`)
          .set('Cookie', adminCookie);
        if (route.internal) call = call.set(INTERNAL_SECRET_HEADER, TEST_INTERNAL_SECRET);
        return body ? call.send(body) : call;
      };
      const cases = [
        ...stringLeaves(row.body ?? {}).flatMap((field) =>
          POISONS.map((poison) => ({ field, poison, body: poisoned(row.body!, field, poison.apply), query: row.query })),
        ),
        // A query string cannot carry an unpaired surrogate: percent-decoding yields U+FFFD for its bytes.
        ...Object.keys(row.query ?? {}).map((field) => ({
          field,
          poison: POISONS[0]!,
          body: row.body,
          query: { ...row.query, [field]: POISONS[0]!.apply(row.query![field]!) },
        })),
      ];
      for (const { field, poison, body, query } of cases) {
        calls++;
        const res = await send(body, query);
        const answer = { status: res.status, code: res.body?.error?.code, issues: res.body?.error?.details?.issues };
        const expected = { status: 400, code: 'VALIDATION_FAILED', issues: [{ path: field, message: poison.message }] };
        if (JSON.stringify(answer) !== JSON.stringify(expected))
          wrong.push({ route: key(route), field, poison: poison.name, answer });
      }
    }
    expect(wrong).toEqual([]);
    expect(calls).toBeGreaterThan(60);
    expect(await databaseFingerprint(database.url)).toEqual(before);
  });

  it('refuses a bad object key too, naming the object that holds it', async () => {
    const res = await request(api.url)
      .patch(`/api/agents/${ids.agentId}`)
      .set('Cookie', adminCookie)
      .send({ modelSettings: { 'model\u0000': 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([{ path: 'modelSettings', message: `keys ${NUL_CHARACTER_MESSAGE}` }]);
  });
});
