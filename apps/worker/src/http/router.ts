import type http from 'node:http';
import type { WorkerRoute } from '@lazyboy/contracts';
import type { z } from 'zod';
import { WorkerHttpError } from './errors.js';
import { DEFAULT_BODY_LIMIT_BYTES, readJsonBody, validate } from './json-body.js';

export interface RouteContext<Body> {
  /** The request body, validated against the route's request schema. */
  body: Body;
  req: http.IncomingMessage;
  url: URL;
}

/** Answers the route's response; thrown WorkerHttpErrors become error bodies. */
export type Handler<R extends WorkerRoute> = (ctx: RouteContext<z.infer<R['request']>>) => Promise<z.infer<R['response']>>;

/** A matched request, ready to run: reads and validates the body, then calls the handler. */
export type Served = (req: http.IncomingMessage, url: URL) => Promise<unknown>;

export interface ServeOptions {
  /** Default DEFAULT_BODY_LIMIT_BYTES; a file write needs more. */
  bodyLimitBytes?: number;
}

/**
 * The worker's routes, each one of libs/contracts' workerRoutes: the path and the body's schema come from
 * there, so the worker serves exactly what the API's WorkerClient calls.
 */
export class Router {
  private readonly routes = new Map<string, Served>();

  serve<R extends WorkerRoute>(route: R, handler: Handler<R>, options: ServeOptions = {}): this {
    const key = `${route.method} ${route.path}`;
    if (this.routes.has(key)) throw new Error(`worker route ${key} is served twice`);
    const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
    this.routes.set(key, async (req, url) => {
      const raw = route.method === 'GET' ? {} : await readJsonBody(req, limit);
      return handler({ body: validate(route.request, raw) as z.infer<R['request']>, req, url });
    });
    return this;
  }

  /** What serves the request, or undefined when no route matches. */
  match(method: string, pathname: string): Served | undefined {
    return this.routes.get(`${method} ${pathname}`);
  }

  /** `METHOD /path` of every route served, for the test that the worker serves exactly the contract's routes. */
  served(): string[] {
    return [...this.routes.keys()];
  }
}

export function notFound(method: string | undefined, pathname: string): WorkerHttpError {
  return new WorkerHttpError('NOT_FOUND', `no route ${method ?? '?'} ${pathname}`);
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}
