import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRecord, type JsonRecord, recordField, tryParseJson } from '../json-values.js';
import { chatCompletionFrames, chatCompletionJson, chatStreamErrorFrame, type ReplyMeta } from './chat-completions-replies.js';
import { conversationOf } from './received-request.js';
import { responseFailedFrame, responseFrames, responseJson } from './responses-replies.js';
import { outputOf, type ReceivedRequest, type Script, type ScriptedApi, type Turn } from './script.js';

export interface ScriptedModelServerOptions {
  script?: Script;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** The model name the server reports (it answers whatever model is asked for). Default 'scripted-model'. */
  model?: string;
  /** The ids `/v1/models` lists. Default: `model` alone. */
  models?: string[];
  /**
   * The key it insists on, as a provider does: any request without `Authorization: Bearer <apiKey>` gets
   * OpenAI's 401 answer (the model list too). Default: none asked for.
   */
  apiKey?: string;
}

/** A request for the model list (`GET /v1/models`). */
export interface ModelListRequest {
  /** Lower-case header names. */
  headers: Record<string, string>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

class RequestBodyTooLarge extends Error {
  override readonly name = 'RequestBodyTooLarge';
}

/**
 * A real OpenAI-compatible HTTP server that answers from a script: `/v1/chat/completions` and
 * `/v1/responses` (also without `/v1`), plain JSON or SSE, tool calls, errors, delays. Tests and the
 * offline `lazyboy smoke` run talk to it exactly as they would to a provider.
 */
export class ScriptedModelServer {
  /** Every chat/responses request received since start (or the last setScript), in arrival order. */
  readonly requests: ReceivedRequest[] = [];
  /** Every model list request received since start, in arrival order (setScript keeps them). */
  readonly modelListRequests: ModelListRequest[] = [];
  readonly model: string;
  private readonly models: string[];
  private apiKey: string | undefined;
  private script: Script;
  private turnsUsed = 0;
  private server: http.Server | undefined;
  private port: number | undefined;
  private readonly host: string;
  private readonly requestedPort: number;
  /** Aborted on close(), so that delayed answers stop waiting. */
  private readonly inFlight = new Set<AbortController>();

  constructor(options: ScriptedModelServerOptions | Script = {}) {
    const resolved: ScriptedModelServerOptions =
      Array.isArray(options) || typeof options === 'function' ? { script: options } : options;
    this.script = resolved.script ?? [];
    this.host = resolved.host ?? '127.0.0.1';
    this.requestedPort = resolved.port ?? 0;
    this.model = resolved.model ?? 'scripted-model';
    this.models = resolved.models ?? [this.model];
    this.apiKey = resolved.apiKey;
  }

  static async start(options: ScriptedModelServerOptions | Script = {}): Promise<ScriptedModelServer> {
    return new ScriptedModelServer(options).start();
  }

  /** The base URL clients use, ending in /v1. */
  get url(): string {
    if (this.port === undefined) throw new Error('the scripted model server is not started');
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.port}/v1`;
  }

  /** Turns of an array script not yet answered; undefined for a function script. */
  get remainingTurns(): number | undefined {
    return Array.isArray(this.script) ? Math.max(0, this.script.length - this.turnsUsed) : undefined;
  }

  /** Changes the key the server insists on (undefined: none). */
  requireApiKey(apiKey: string | undefined): void {
    this.apiKey = apiKey;
  }

  /** Replaces the script, restarts it from its first turn, and forgets the recorded requests. */
  setScript(script: Script): void {
    this.script = script;
    this.turnsUsed = 0;
    this.requests.length = 0;
  }

  async start(): Promise<this> {
    if (this.server) return this;
    const server = http.createServer((req, res) => {
      void this.handle(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.requestedPort, this.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Stops listening and drops every connection, including streams and delayed answers in progress. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const controller of this.inFlight) controller.abort();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const controller = new AbortController();
    this.inFlight.add(controller);
    res.on('close', () => {
      controller.abort();
      this.inFlight.delete(controller);
    });
    try {
      const path = new URL(req.url ?? '/', 'http://scripted').pathname;
      const api = routeOf(req.method ?? 'GET', path);
      if (api === 'models') this.modelListRequests.push({ headers: headersOf(req.headers) });
      if (api && this.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.apiKey}`) {
        if (api !== 'models') this.record(api, path, tryParseJsonRecord(await readBody(req)), req.headers);
        sendJson(res, 401, defaultErrorBody(401, this.model));
        return;
      }
      if (api === 'models') {
        sendJson(res, 200, {
          object: 'list',
          data: this.models.map((id) => ({ id, object: 'model', owned_by: 'scripted' })),
        });
        return;
      }
      if (!api) {
        sendError(res, 404, `scripted model server: no route for ${req.method} ${path}`, 'invalid_request_error', 'not_found');
        return;
      }
      const parsed = tryParseJson(await readBody(req));
      if (!parsed.ok || !isRecord(parsed.value)) {
        sendError(
          res,
          400,
          'scripted model server: the request body is not a JSON object',
          'invalid_request_error',
          'invalid_json',
        );
        return;
      }
      const request = this.record(api, path, parsed.value, req.headers);
      const turn = await this.nextTurn(request);
      if (!turn) {
        const length = Array.isArray(this.script) ? this.script.length : 0;
        sendError(
          res,
          500,
          `scripted model server: the script is exhausted (it has ${length} turns; request #${request.index + 1} to ${path} found none left)`,
          'server_error',
          'script_exhausted',
        );
        return;
      }
      if (turn.delayMs && !(await pause(turn.delayMs, controller.signal))) return;
      await this.answer(res, request, turn, controller.signal);
    } catch (error) {
      if (error instanceof RequestBodyTooLarge) {
        sendError(res, 413, error.message, 'invalid_request_error', 'body_too_large');
      } else if (!res.headersSent) {
        const message = error instanceof Error ? error.message : String(error);
        sendError(res, 500, `scripted model server: the script failed: ${message}`, 'server_error', 'script_failed');
      } else {
        res.destroy();
      }
    }
  }

  private record(api: ScriptedApi, path: string, body: JsonRecord, rawHeaders: http.IncomingHttpHeaders): ReceivedRequest {
    const headers = headersOf(rawHeaders);
    const model = body['model'];
    const request: ReceivedRequest = {
      index: this.requests.length,
      api,
      path,
      stream: body['stream'] === true,
      model: typeof model === 'string' ? model : undefined,
      ...conversationOf(api, body),
      toolChoice: body['tool_choice'],
      body,
      headers,
    };
    this.requests.push(request);
    return request;
  }

  private async nextTurn(request: ReceivedRequest): Promise<Turn | undefined> {
    if (typeof this.script === 'function') return this.script(request);
    const turn = this.script[this.turnsUsed];
    if (turn) this.turnsUsed += 1;
    return turn;
  }

  private async answer(res: http.ServerResponse, request: ReceivedRequest, turn: Turn, signal: AbortSignal): Promise<void> {
    if (turn.redirectTo !== undefined) {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(turn.httpStatus ?? 307, { location: turn.redirectTo, 'content-type': 'text/plain; charset=utf-8' });
      res.end(`moved to ${turn.redirectTo}`);
      return;
    }
    if (turn.errorBody !== undefined || (turn.httpStatus ?? 200) >= 400) {
      sendScriptedError(res, turn, request.model ?? this.model);
      return;
    }
    const output = outputOf(turn, request);
    const meta: ReplyMeta = {
      id: request.api === 'chat-completions' ? `chatcmpl-scripted-${request.index}` : `resp_scripted_${request.index}`,
      model: request.model ?? this.model,
      created: Math.floor(Date.now() / 1000),
    };
    if (!request.stream) {
      if (turn.streamError !== undefined) {
        sendError(res, 500, turn.streamError, 'server_error', 'server_error');
        return;
      }
      sendJson(res, 200, request.api === 'chat-completions' ? chatCompletionJson(output, meta) : responseJson(output, meta));
      return;
    }
    const includeUsage = recordField(request.body, 'stream_options')?.['include_usage'] === true;
    const { deltas, end } =
      request.api === 'chat-completions' ? chatCompletionFrames(output, meta, includeUsage) : responseFrames(output, meta);
    const failure =
      turn.streamError === undefined
        ? undefined
        : request.api === 'chat-completions'
          ? chatStreamErrorFrame(turn.streamError)
          : responseFailedFrame(turn.streamError, meta);
    const frames = failure === undefined ? [...deltas, ...end] : [...deltas, failure];
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    for (const [position, frame] of frames.entries()) {
      if (position > 0 && turn.chunkDelayMs && !(await pause(turn.chunkDelayMs, signal))) return;
      if (res.destroyed) return;
      res.write(frame);
    }
    res.end();
  }
}

function headersOf(rawHeaders: http.IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(rawHeaders)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** A refused request's body, recorded as far as it is a JSON object. */
function tryParseJsonRecord(text: string): JsonRecord {
  const parsed = tryParseJson(text);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : {};
}

function routeOf(method: string, path: string): ScriptedApi | 'models' | undefined {
  const route = path.replace(/\/+$/, '').replace(/^\/v1(?=\/)/, '');
  if (method === 'GET' && route === '/models') return 'models';
  if (method !== 'POST') return undefined;
  if (route === '/chat/completions') return 'chat-completions';
  if (route === '/responses') return 'responses';
  return undefined;
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) {
      throw new RequestBodyTooLarge(`scripted model server: the request body exceeds ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Waits unless `signal` fires first (client gone, server closing); says whether to go on. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sendError(res: http.ServerResponse, status: number, message: string, type: string, code: string): void {
  sendJson(res, status, { error: { message, type, code } });
}

/** The default error body for a status, worded the way OpenAI words it. */
function defaultErrorBody(status: number, model: string): JsonRecord {
  const error = (message: string, type: string, code: string): JsonRecord => ({ error: { message, type, code } });
  if (status === 401) return error('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
  if (status === 403) return error('You are not allowed to use this model.', 'invalid_request_error', 'forbidden');
  if (status === 404) {
    const message = `The model \`${model}\` does not exist or you do not have access to it.`;
    return error(message, 'invalid_request_error', 'model_not_found');
  }
  if (status === 429) return error('Rate limit reached for requests.', 'requests', 'rate_limit_exceeded');
  if (status >= 500) return error(`scripted server error (HTTP ${status})`, 'server_error', 'server_error');
  return error(`scripted request error (HTTP ${status})`, 'invalid_request_error', 'invalid_request');
}

/** An error answer, or with errorBody and a status below 400 any raw answer (a broken provider, say). */
function sendScriptedError(res: http.ServerResponse, turn: Turn, model: string): void {
  if (res.headersSent || res.destroyed) return;
  const status = turn.httpStatus ?? 500;
  const headers: Record<string, string> =
    turn.retryAfterSeconds !== undefined ? { 'retry-after': String(turn.retryAfterSeconds) } : {};
  if (typeof turn.errorBody === 'string') {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(turn.errorBody);
    return;
  }
  sendJson(res, status, turn.errorBody ?? defaultErrorBody(status, model), headers);
}
