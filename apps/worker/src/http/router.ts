import type http from 'node:http';
import { WorkerHttpError } from './errors.js';

export interface RouteContext {
  req: http.IncomingMessage;
  url: URL;
  params: Record<string, string>;
}

/** What a handler answers; thrown WorkerHttpErrors become error bodies. */
export interface Reply {
  status: number;
  body: unknown;
}

export type Handler = (ctx: RouteContext) => Promise<Reply>;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

/** Exact paths with `:name` segments; enough for a dozen routes without a framework. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: 'GET' | 'POST', path: string, handler: Handler): this {
    this.routes.push({ method, segments: split(path), handler });
    return this;
  }

  /** The handler for the request, or undefined when no route matches. */
  match(method: string, pathname: string): { handler: Handler; params: Record<string, string> } | undefined {
    const parts = split(pathname);
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const matched = route.segments.every((segment, i) => {
        const part = parts[i] ?? '';
        if (segment.startsWith(':')) {
          params[segment.slice(1)] = decodeURIComponent(part);
          return true;
        }
        return segment === part;
      });
      if (matched) return { handler: route.handler, params };
    }
    return undefined;
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

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}
