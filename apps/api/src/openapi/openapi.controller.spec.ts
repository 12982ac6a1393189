import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { pageQuerySchema, type PageQuery } from '@lazyboy/contracts';
import request from 'supertest';
import { z } from 'zod';
import { AdminOnly } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { ZodQuery } from '../common/zod-params.js';
import { startTestApp, type TestApp } from '../testing/test-app.js';
import { testApiConfig } from '../testing/test-config.js';
import { collectApiRoutes, listApiRoutes, openApiPath, type ApiRouteSummary } from './api-routes.js';
import { buildOpenApiDocument } from './openapi-document.js';

type Json = Record<string, unknown>;

interface TreeNode {
  name: string;
  children: TreeNode[];
}
// A recursive schema: zod refers back to it, which must end up as a component reference.
const treeSchema: z.ZodType<TreeNode> = z.object({
  name: z.string(),
  get children() {
    return z.array(treeSchema);
  },
});

/** Exercises what the app's routes may not: an admin-only recursive response, a paged query schema. */
@Controller('api/openapi-probe')
class ProbeController {
  @Get('admin')
  @AdminOnly()
  @ApiRoute({ summary: 'An admin-only probe', response: treeSchema, tag: 'probe' })
  admin(): TreeNode {
    return { name: 'root', children: [] };
  }

  @Get('page')
  @ApiRoute({ summary: 'A paged probe' })
  page(@ZodQuery(pageQuerySchema) query: PageQuery): PageQuery {
    return query;
  }
}

/** Every "$ref" in the document points at something that exists in it. */
function unresolvedRefs(document: Json): string[] {
  const missing: string[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') {
        let target: unknown = document;
        for (const part of item.replace(/^#\//, '').split('/')) target = (target as Json | undefined)?.[part];
        if (!item.startsWith('#/') || target === undefined) missing.push(item);
      } else visit(item);
    }
  };
  visit(document);
  return missing;
}

type OpenApiJson = Json & { paths: Record<string, Record<string, Json>>; components: Json };

describe('OpenAPI document at /api/docs', () => {
  let api: TestApp;
  let document: OpenApiJson;

  beforeAll(async () => {
    api = await startTestApp(testApiConfig());
    // No cookie: the document is public.
    const res = await request(api.url).get('/api/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    document = JSON.parse(res.text) as OpenApiJson;
  });

  afterAll(async () => {
    await api?.close();
  });

  it('is an OpenAPI 3.1 document, served without signing in, whose references all resolve', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: 'LazyBoy API' });
    expect(document.components.securitySchemes).toEqual({
      sessionCookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'lazyboy_session' }),
      bearerToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(document.security).toEqual([{ sessionCookie: [] }, { bearerToken: [] }]);
    expect(unresolvedRefs(document)).toEqual([]);
    expect(JSON.stringify(document)).not.toContain('$defs');
    for (const [path, operations] of Object.entries(document.paths)) {
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const operation of Object.values(operations)) {
        const inPath = (operation.parameters as Json[]).filter((p) => p.in === 'path').map((p) => p.name);
        expect([path, inPath.sort()]).toEqual([path, templated]);
        expect(Object.keys(operation.responses as Json)).toContain('default');
      }
    }
  });

  it('documents the agents routes with their request bodies, responses and statuses', () => {
    const list = document.paths['/api/workspaces/{workspaceId}/agents']!;
    const one = document.paths['/api/agents/{agentId}']!;
    expect(Object.keys(list).sort()).toEqual(['get', 'post']);
    expect(Object.keys(one).sort()).toEqual(['delete', 'get', 'patch']);

    const create = list.post!;
    expect(create.parameters).toEqual([
      { name: 'workspaceId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
    ]);
    const createBody = (create.requestBody as Json & { content: Record<string, { schema: Json }> }).content['application/json']!
      .schema;
    expect(createBody).toMatchObject({ type: 'object', required: ['name'], additionalProperties: false });
    expect(Object.keys(createBody.properties as Json)).toEqual(
      expect.arrayContaining(['name', 'avatarSeed', 'instructions', 'computerMode', 'modelSettings']),
    );
    expect(Object.keys(create.responses as Json).sort()).toEqual(['201', 'default']);
    expect((create.responses as Record<string, Json>)['201']!.content).toMatchObject({
      'application/json': { schema: { type: 'object', properties: { hasModelApiKey: { type: 'boolean' } } } },
    });
    expect((create.responses as Record<string, Json>).default).toEqual({
      description: 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
    });

    const patchBody = (one.patch!.requestBody as Json & { content: Record<string, { schema: Json }> }).content[
      'application/json'
    ]!.schema;
    expect(patchBody.properties).toHaveProperty('modelApiKey');
    // The view never carries the key itself.
    const view = (one.get!.responses as Record<string, { content: Record<string, { schema: Json }> }>)['200']!.content[
      'application/json'
    ]!.schema;
    expect(view.properties).not.toHaveProperty('modelApiKey');
    expect(view.properties).not.toHaveProperty('modelApiKeyCipher');

    expect(Object.keys(one.delete!.responses as Json).sort()).toEqual(['204', 'default']);
    expect((one.delete!.responses as Record<string, Json>)['204']).not.toHaveProperty('content');
    expect(list.get!.security).toBeUndefined();
    expect(list.get!.tags).toEqual(['agents']);
  });

  it('marks public and admin-only routes', () => {
    expect(document.paths['/api/docs']!.get!.security).toEqual([]);
    expect(document.paths['/api/auth/login']!.post!.security).toEqual([]);
    expect(document.paths['/api/admin/users']!.get!['x-admin-only']).toBe(true);
    expect(document.paths['/api/workspaces/{workspaceId}/agents']!.get!).not.toHaveProperty('x-admin-only');
  });

  it('lists every route, and each one is in the document', () => {
    const routes = listApiRoutes(api.app);
    expect(routes).toEqual(
      expect.arrayContaining([
        {
          method: 'GET',
          path: '/api/workspaces/:workspaceId/agents',
          params: ['workspaceId'],
          public: false,
          admin: false,
          internal: false,
        },
        { method: 'POST', path: '/api/viewer/redeem', params: [], public: false, admin: false, internal: true },
        {
          method: 'POST',
          path: '/api/workspaces/:workspaceId/agents',
          params: ['workspaceId'],
          public: false,
          admin: false,
          internal: false,
        },
        { method: 'GET', path: '/api/agents/:agentId', params: ['agentId'], public: false, admin: false, internal: false },
        { method: 'PATCH', path: '/api/agents/:agentId', params: ['agentId'], public: false, admin: false, internal: false },
        { method: 'DELETE', path: '/api/agents/:agentId', params: ['agentId'], public: false, admin: false, internal: false },
        { method: 'GET', path: '/api/docs', params: [], public: true, admin: false, internal: false },
        { method: 'GET', path: '/api/admin/users', params: [], public: false, admin: true, internal: false },
        { method: 'GET', path: '/healthz', params: [], public: expect.any(Boolean), admin: false, internal: false },
      ]),
    );
    for (const route of routes) {
      expect([
        route.method,
        route.path,
        document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()] !== undefined,
      ]).toEqual([route.method, route.path, true]);
    }
    const operations = Object.values(document.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(operations).toBe(routes.length);
  });
});

describe('OpenAPI document builder on a synthetic controller', () => {
  let routes: ApiRouteSummary[];
  let document: OpenApiJson;

  beforeAll(async () => {
    // Only the probe: its routes are collected and documented exactly as the app's are.
    const moduleRef = await Test.createTestingModule({ controllers: [ProbeController] }).compile();
    routes = listApiRoutes(moduleRef);
    const collected = collectApiRoutes(
      new DiscoveryService(moduleRef.get(ModulesContainer)),
      new MetadataScanner(),
      new Reflector(),
    );
    // Through JSON, as /api/docs serves it.
    document = JSON.parse(JSON.stringify(buildOpenApiDocument(collected, 'probe'))) as OpenApiJson;
    await moduleRef.close();
  });

  it('lists the probe routes with their admin flag', () => {
    expect(routes).toEqual([
      { method: 'GET', path: '/api/openapi-probe/admin', params: [], public: false, admin: true, internal: false },
      { method: 'GET', path: '/api/openapi-probe/page', params: [], public: false, admin: false, internal: false },
    ]);
  });

  it('marks admin-only routes, and spells out query parameters and recursive schemas', () => {
    expect(document.paths['/api/openapi-probe/admin']!.get!['x-admin-only']).toBe(true);
    expect(document.paths['/api/openapi-probe/admin']!.get!.tags).toEqual(['probe']);
    const adminSchema = (document.paths['/api/openapi-probe/admin']!.get!.responses as Record<string, Json>)['200']!
      .content as Json;
    expect(adminSchema).toEqual({ 'application/json': { schema: { $ref: expect.stringMatching(/^#\/components\/schemas\//) } } });
    expect(unresolvedRefs(document)).toEqual([]);
    expect(JSON.stringify(document)).not.toContain('$defs');

    const page = document.paths['/api/openapi-probe/page']!.get!;
    expect(page).not.toHaveProperty('x-admin-only');
    expect(page.parameters).toEqual([
      { name: 'before', in: 'query', required: false, schema: expect.objectContaining({ type: 'string', format: 'uuid' }) },
      { name: 'limit', in: 'query', required: false, schema: expect.objectContaining({ default: 50 }) },
    ]);
  });
});
