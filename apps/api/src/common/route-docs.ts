import { SetMetadata } from '@nestjs/common';
import type { z } from 'zod';

// What the OpenAPI document (/api/docs) knows about a route beyond Nest's own path and method metadata.

export const ROUTE_DOC = 'lazyboy:route-doc';
const ROUTE_SCHEMAS = 'lazyboy:route-schemas';

export interface RouteDoc {
  summary: string;
  /** The success response body. */
  response?: z.ZodType;
  /** Success status when not 200 (201 created, 202 accepted, 204 no content). */
  status?: number;
  tag?: string;
}

/** Documents a route: a one-line summary and its response schema. */
export const ApiRoute = (doc: RouteDoc) => SetMetadata(ROUTE_DOC, doc);

export interface RouteSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
}

export function recordRouteSchema(target: object, key: string | symbol, where: keyof RouteSchemas, schema: z.ZodType): void {
  const method = (target as Record<string | symbol, unknown>)[key] as object;
  const existing = (Reflect.getMetadata(ROUTE_SCHEMAS, method) as RouteSchemas | undefined) ?? {};
  Reflect.defineMetadata(ROUTE_SCHEMAS, { ...existing, [where]: schema }, method);
}

export function routeSchemas(handler: object): RouteSchemas {
  return (Reflect.getMetadata(ROUTE_SCHEMAS, handler) as RouteSchemas | undefined) ?? {};
}
