import { apiErrorBodySchema } from '@lazyboy/contracts';
import { SESSION_COOKIE } from '../auth/principal.js';
import { ROUTE_DOC, routeSchemas, type RouteDoc } from '../common/route-docs.js';
import { openApiPath, type ApiRoute } from './api-routes.js';
import { JsonSchemaCollector, type JsonSchema } from './json-schemas.js';

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  security: Record<string, string[]>[];
  tags: { name: string }[];
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
}

const OPENAPI_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH']);
const SIGNED_IN: Record<string, string[]>[] = [{ sessionCookie: [] }, { bearerToken: [] }];

/** The OpenAPI 3.1 document of the given routes, from their Nest metadata, route docs and zod schemas. */
export function buildOpenApiDocument(routes: readonly ApiRoute[], version: string): OpenApiDocument {
  const schemas = new JsonSchemaCollector();
  const errorRef = schemas.named('ApiError', apiErrorBodySchema, 'output');
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const route of routes) {
    // ALL, SEARCH and the WebDAV verbs have no OpenAPI operation; the API declares none of them.
    if (!OPENAPI_METHODS.has(route.method)) continue;
    const operation = operationOf(route, schemas, errorRef);
    for (const tag of operation.tags as string[]) tags.add(tag);
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'LazyBoy API',
      version,
      description:
        'Errors are `{ error: { code, message, reason?, details? } }` with a stable code (and, for conflicts, a stable reason). Ids of another workspace answer 404 like missing ones.',
    },
    servers: [{ url: '/' }],
    security: SIGNED_IN,
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: schemas.components,
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'Set by POST /api/auth/login.' },
        bearerToken: { type: 'http', scheme: 'bearer', description: 'An API token.' },
      },
    },
  };
}

function operationOf(route: ApiRoute, schemas: JsonSchemaCollector, errorRef: JsonSchema): JsonSchema {
  const doc = Reflect.getMetadata(ROUTE_DOC, route.handler) as RouteDoc | undefined;
  const { body, query } = routeSchemas(route.handler);
  const status = doc?.status ?? route.status;
  const success: JsonSchema = { description: doc?.summary ?? 'Success' };
  if (doc?.response && status !== 204)
    success.content = { 'application/json': { schema: schemas.convert(doc.response, 'output') } };

  const parameters: JsonSchema[] = route.params.map((name) => ({
    name,
    in: 'path',
    required: true,
    // Every id in the API is a UUID (IdParam answers 404 for anything else).
    schema: /id$/i.test(name) ? { type: 'string', format: 'uuid' } : { type: 'string' },
  }));
  if (query) parameters.push(...queryParameters(schemas.convert(query, 'input')));

  const operation: JsonSchema = {
    operationId: `${route.controller.name}.${route.methodName}`,
    summary: doc?.summary ?? route.methodName,
    tags: [doc?.tag ?? defaultTag(route.path)],
    parameters,
    responses: {
      [String(status)]: success,
      default: { description: 'Error', content: { 'application/json': { schema: errorRef } } },
    },
  };
  if (body)
    operation.requestBody = { required: true, content: { 'application/json': { schema: schemas.convert(body, 'input') } } };
  if (route.public) operation.security = [];
  // The web server's own calls: the shared secret in x-lazyboy-internal, not a person's credentials.
  if (route.internal) {
    operation.security = [];
    operation['x-internal'] = true;
  }
  if (route.admin) operation['x-admin-only'] = true;
  return operation;
}

/** An object schema becomes one parameter per property; anything else one free-form object parameter. */
function queryParameters(schema: JsonSchema): JsonSchema[] {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (schema.type !== 'object' || !properties) return [{ name: 'query', in: 'query', style: 'form', explode: true, schema }];
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}

/** /api/workspaces/:id/agents → workspaces; /healthz → health. */
function defaultTag(path: string): string {
  const segments = path.split('/').filter(Boolean);
  const first = segments[0] === 'api' ? segments[1] : undefined;
  return first ?? 'health';
}
