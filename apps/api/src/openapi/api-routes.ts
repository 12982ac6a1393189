import { RequestMethod, type INestApplicationContext, type Type } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { ADMIN_ROUTE, INTERNAL_ROUTE, PUBLIC_ROUTE } from '../auth/principal.js';

/** One HTTP route as the cross-workspace tests and the OpenAPI document see it. */
export interface ApiRouteSummary {
  /** Upper case: GET, POST, PUT, PATCH, DELETE… */
  method: string;
  /** Express style, e.g. /api/agents/:agentId. */
  path: string;
  /** Path parameter names, in order. */
  params: string[];
  /** @Public(): no authentication. */
  public: boolean;
  /** @AdminOnly(): instance administrators only. */
  admin: boolean;
  /** @Internal(): the web server only (its shared secret), never a person. */
  internal: boolean;
}

export interface ApiRoute extends ApiRouteSummary {
  controller: Type;
  methodName: string;
  /** The handler function: the key of its Reflect metadata (route docs and zod schemas). */
  handler: object;
  /** Nest's own status: @HttpCode, else 201 for POST and 200 otherwise. */
  status: number;
}

/** Every route of every controller in the application, sorted by path then method. */
export function collectApiRoutes(discovery: DiscoveryService, scanner: MetadataScanner, reflector: Reflector): ApiRoute[] {
  const routes = new Map<string, ApiRoute>();
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as Type | null;
    if (!controller || !wrapper.instance) continue;
    const prototype = Object.getPrototypeOf(wrapper.instance) as Record<string, unknown>;
    const controllerPaths = asArray(Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined);
    for (const methodName of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[methodName];
      if (typeof handler !== 'function') continue;
      const methodPaths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (methodPaths === undefined || requestMethod === undefined) continue;
      const method = RequestMethod[requestMethod];
      const targets = [handler, controller];
      const isPublic = reflector.getAllAndOverride<boolean | undefined>(PUBLIC_ROUTE, targets) === true;
      const admin = reflector.getAllAndOverride<boolean | undefined>(ADMIN_ROUTE, targets) === true;
      const internal = reflector.getAllAndOverride<boolean | undefined>(INTERNAL_ROUTE, targets) === true;
      const status =
        (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ??
        (requestMethod === RequestMethod.POST ? 201 : 200);
      for (const base of controllerPaths) {
        for (const sub of asArray(methodPaths)) {
          const path = joinPath(base, sub);
          const key = `${method} ${path}`;
          if (routes.has(key)) continue;
          routes.set(key, {
            method,
            path,
            params: pathParams(path),
            public: isPublic,
            admin,
            internal,
            controller,
            methodName,
            handler,
            status,
          });
        }
      }
    }
  }
  return [...routes.values()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

/**
 * Every route of a running (or initialised) application: method, Express path, @Public, @AdminOnly, @Internal.
 * Works whether or not the application imports OpenApiModule.
 */
export function listApiRoutes(app: INestApplicationContext): ApiRouteSummary[] {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  return collectApiRoutes(discovery, new MetadataScanner(), new Reflector()).map(
    ({ method, path, params, admin, internal, ...rest }) => ({
      method,
      path,
      params,
      public: rest.public,
      admin,
      internal,
    }),
  );
}

/** /api/agents/:agentId → /api/agents/{agentId} */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}

function joinPath(base: string, sub: string): string {
  const joined = `/${base}/${sub}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

function asArray(value: string | string[] | undefined): string[] {
  if (value === undefined) return [''];
  return Array.isArray(value) ? value : [value];
}
