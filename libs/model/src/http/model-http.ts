import { setTimeout as sleep } from 'node:timers/promises';
import {
  ModelAbortedError,
  ModelConnectionError,
  ModelEndpointRefusedError,
  type ModelError,
  ModelProtocolError,
  ModelRedirectError,
  ModelTimeoutError,
} from '../errors.js';
import { isRecord, tryParseJson } from '../json-values.js';
import { concealAddress, displayUrl, endpointLabel, joinUrl, type ModelEndpoint } from './endpoint.js';
import type { ModelEndpointPolicy } from './endpoint-policy.js';
import { formatDuration, oneLine, quoteProvider, redact } from './message-text.js';
import { errorForReport, errorForStatus, isRetryableStatus, readErrorBody, reportFromObject } from './provider-errors.js';
import { backoffDelayMs, DEFAULT_RETRY_POLICY, parseRetryAfterMs, type RetryPolicy } from './retry-policy.js';
import { type SseEvent, SseParser } from './sse-parser.js';
import { request } from './transport.js';

export const DEFAULT_TIMEOUT_MS = 120_000;

export interface RetryNotice {
  /** The attempt that failed (1 = the first request). */
  attempt: number;
  delayMs: number;
  reason: string;
  status?: number;
}

export interface ModelHttpOptions {
  /**
   * Per attempt: how long until a JSON answer is complete, or how long a stream may stay silent
   * (a long generation is fine as long as chunks keep coming). Default 120 s.
   */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Called before each backoff wait: for logs, and for tests that check what was waited. */
  onRetry?: (notice: RetryNotice) => void;
  /** Extra request headers (an organisation id, a proxy's own header). */
  headers?: Record<string, string>;
  /**
   * Which addresses the endpoint may be at, checked before every attempt and on every address a name
   * resolves to. For endpoints people configured (an agent's or a workspace's settings); none: any.
   */
  endpointPolicy?: ModelEndpointPolicy;
}

/** What the body reader of one attempt can do besides reading. */
interface AttemptIo {
  /** Restarts the inactivity timer: data arrived. */
  touch(): void;
  /** Output reached the caller, so a failure from now on must not repeat the request. */
  delivered(): void;
  /** Turns a network, timeout or abort failure of `promise` into the error it means. */
  guard<V>(promise: Promise<V>): Promise<V>;
}

/** A failure that another attempt may cure; becomes its typed error once the budget is spent. */
class RetryableFailure {
  constructor(
    readonly reason: string,
    readonly toError: (attempts: number) => ModelError,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {}
}

/**
 * JSON over HTTP to one model endpoint: timeouts, the caller's AbortSignal, and retries with backoff
 * on 429, 5xx and network errors. Timeouts are not retried: a provider that stayed silent for the whole
 * timeout is most likely overloaded, and repeating would multiply the wait before the run hears of it.
 */
export class ModelHttp {
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;

  constructor(
    private readonly endpoint: ModelEndpoint,
    private readonly options: ModelHttpOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  }

  async postJson(path: string, body: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    return this.send(path, body, signal, 'application/json', (response, io) => this.readJson(response, io));
  }

  /** A GET of JSON (the model list), with the same policy, timeout, retries and errors as a post. */
  async getJson(path: string, signal: AbortSignal | undefined): Promise<unknown> {
    return this.send(path, undefined, signal, 'application/json', (response, io) => this.readJson(response, io));
  }

  private async readJson(response: Response, io: AttemptIo): Promise<unknown> {
    const text = await io.guard(response.text());
    const parsed = tryParseJson(text);
    if (!parsed.ok) {
      throw new ModelProtocolError(
        `the model provider ${this.endpoint.provider} answered with something other than JSON: ${quoteProvider(concealAddress(text, this.endpoint), this.endpoint.apiKey, 120)}`,
        { provider: this.endpoint.provider },
      );
    }
    return parsed.value;
  }

  /** Posts `body` and hands each server-sent event to `onEvent` until the stream ends or it returns 'stop'. */
  async postEventStream(
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
    onEvent: (event: SseEvent) => 'stop' | void,
  ): Promise<void> {
    await this.send(path, body, signal, 'text/event-stream', async (response, io) => {
      const contentType = response.headers.get('content-type') ?? '';
      if (!contentType.includes('text/event-stream') || !response.body) {
        const text = await io.guard(response.text());
        // Some compatible servers answer a failure with 200 and an error object.
        const parsed = tryParseJson(text);
        if (parsed.ok && isRecord(parsed.value) && 'error' in parsed.value) {
          throw errorForReport(this.endpoint, reportFromObject(parsed.value));
        }
        throw new ModelProtocolError(
          `the model provider ${this.endpoint.provider} answered a streaming request with '${contentType || 'no content type'}' instead of an event stream`,
          { provider: this.endpoint.provider },
        );
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      try {
        for (;;) {
          const { done, value } = await io.guard(reader.read());
          io.touch();
          const events = done
            ? [...parser.push(decoder.decode()), ...parser.end()]
            : parser.push(decoder.decode(value, { stream: true }));
          for (const event of events) {
            io.delivered();
            if (onEvent(event) === 'stop') return;
          }
          if (done) return;
        }
      } finally {
        // Stops the download after an early return ([DONE]) or a failure, which frees the connection.
        reader.cancel().catch(() => undefined);
      }
    });
  }

  /** `body` undefined: a GET. */
  private async send<T>(
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
    accept: string,
    read: (response: Response, io: AttemptIo) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.sendWithRetries(path, body, signal, accept, read);
    } catch (error) {
      // The last line of defence: whatever a message quotes, the request's key never leaves with it, nor a
      // labelled endpoint's address.
      const { apiKey } = this.endpoint;
      if (error instanceof Error) {
        const cleaned = concealAddress(redact(error.message, apiKey), this.endpoint);
        if (cleaned !== error.message) error.message = cleaned;
      }
      throw error;
    }
  }

  private async sendWithRetries<T>(
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
    accept: string,
    read: (response: Response, io: AttemptIo) => Promise<T>,
  ): Promise<T> {
    const json = body === undefined ? undefined : JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(path, json, signal, accept, read);
      } catch (failure) {
        if (!(failure instanceof RetryableFailure)) throw failure;
        if (attempt > this.policy.maxRetries) throw failure.toError(attempt);
        const delayMs =
          failure.retryAfterMs !== undefined
            ? Math.min(failure.retryAfterMs, this.policy.maxRetryAfterMs)
            : backoffDelayMs(this.policy, attempt - 1);
        this.options.onRetry?.({
          attempt,
          delayMs,
          reason: failure.reason,
          ...(failure.status !== undefined ? { status: failure.status } : {}),
        });
        try {
          await sleep(delayMs, undefined, signal ? { signal } : undefined);
        } catch {
          throw this.aborted();
        }
      }
    }
  }

  private async attempt<T>(
    path: string,
    json: string | undefined,
    signal: AbortSignal | undefined,
    accept: string,
    read: (response: Response, io: AttemptIo) => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) throw this.aborted();
    const { provider, baseUrl, apiKey } = this.endpoint;
    const where = endpointLabel(this.endpoint);
    const policy = this.options.endpointPolicy;
    policy?.assertAllowed(baseUrl, provider);
    const controller = new AbortController();
    let timedOut = false;
    let delivered = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, this.timeoutMs);
    };
    const forwardAbort = (): void => controller.abort();
    signal?.addEventListener('abort', forwardAbort, { once: true });

    const failed = (error: unknown): never => {
      // The policy's resolver refused what the name resolved to: the same name would be refused again.
      if (error instanceof ModelEndpointRefusedError) throw new ModelEndpointRefusedError(error.message, { provider });
      // An answer that is no HTTP a Response can hold: asking again gets the same.
      if (error instanceof ModelProtocolError) {
        if (this.endpoint.label === undefined) throw error;
        throw new ModelProtocolError(concealAddress(error.message, this.endpoint), { provider });
      }
      if (signal?.aborted) throw this.aborted();
      if (timedOut) {
        throw new ModelTimeoutError(
          `the model provider ${provider} did not answer within ${formatDuration(this.timeoutMs)} (${where})`,
          this.timeoutMs,
          { provider },
        );
      }
      // Node's words name the address it tried ("connect ECONNREFUSED 10.0.0.5:8000").
      const cause = concealAddress(networkCause(error), this.endpoint);
      if (delivered) {
        throw new ModelConnectionError(
          `the connection to the model provider ${provider} at ${where} broke mid-response (${cause})`,
          { provider, cause: error },
        );
      }
      throw new RetryableFailure(
        cause,
        (attempts) =>
          new ModelConnectionError(
            `could not reach the model provider ${provider} at ${where} (${cause})${attempts > 1 ? ` after ${attempts} attempts` : ''}`,
            { provider, cause: error },
          ),
      );
    };
    const io: AttemptIo = {
      touch: arm,
      delivered: () => {
        delivered = true;
      },
      guard: (promise) => promise.catch(failed),
    };

    arm();
    try {
      const url = joinUrl(baseUrl, path);
      const response = await io.guard(
        request(url, {
          headers: {
            ...(json === undefined ? {} : { 'content-type': 'application/json' }),
            accept,
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
            ...this.options.headers,
          },
          ...(json === undefined ? {} : { body: json }),
          signal: controller.signal,
          ...(policy ? { policy } : {}),
        }),
      );
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => undefined);
        throw this.redirected(response, url);
      }
      if (!response.ok) {
        const report = readErrorBody(await io.guard(response.text()));
        const retryAfterMs = parseRetryAfterMs(response.headers);
        const toError = (attempts: number): ModelError =>
          errorForStatus(this.endpoint, response.status, report, retryAfterMs, attempts);
        if (isRetryableStatus(response.status, report)) {
          throw new RetryableFailure(`HTTP ${response.status}`, toError, response.status, retryAfterMs);
        }
        throw toError(1);
      }
      return await read(response, io);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    }
  }

  /** The key went to the base URL only; wherever the redirect points gets nothing, not even a second request. */
  private redirected(response: Response, url: string): ModelRedirectError {
    const { provider, label } = this.endpoint;
    const location = response.headers.get('location');
    let target = '';
    // Where a labelled endpoint redirects would tell where it is.
    if (location && label === undefined) {
      try {
        target = ` to ${displayUrl(new URL(location, url).href)}`;
      } catch {
        target = '';
      }
    }
    return new ModelRedirectError(
      `the model provider ${provider} at ${endpointLabel(this.endpoint)} answered with a redirect (HTTP ${response.status}${target}); ` +
        'redirects are not followed: set the base URL to the final address',
      { provider, status: response.status },
    );
  }

  private aborted(): ModelAbortedError {
    return new ModelAbortedError(`the request to the model provider ${this.endpoint.provider} was aborted`, {
      provider: this.endpoint.provider,
    });
  }
}

interface ErrorLike {
  message?: unknown;
  code?: unknown;
  name?: unknown;
  cause?: unknown;
}

// Duck-typed rather than `instanceof Error`: Node's own errors come from another realm under Jest's VM.
function asErrorLike(value: unknown): ErrorLike | undefined {
  return typeof value === 'object' && value !== null ? (value as ErrorLike) : undefined;
}

/** The useful part of a network failure: the system error (ECONNREFUSED and the like), under a wrapper if any. */
function networkCause(error: unknown): string {
  const outer = asErrorLike(error);
  const inner = asErrorLike(outer?.cause) ?? outer;
  if (!inner) return oneLine(String(error), 160);
  const code = typeof inner.code === 'string' ? inner.code : undefined;
  const message =
    (typeof inner.message === 'string' && inner.message) ||
    code ||
    (typeof inner.name === 'string' ? inner.name : 'network error');
  return oneLine(code && !message.includes(code) ? `${code}: ${message}` : message, 160);
}
