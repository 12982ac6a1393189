import {
  ModelAuthError,
  type ModelError,
  ModelNotFoundError,
  ModelRateLimitError,
  ModelRequestError,
  ModelServerError,
} from '../errors.js';
import { isRecord, type JsonRecord, stringField, tryParseJson } from '../json-values.js';
import { concealAddress, endpointLabel, type ModelEndpoint } from './endpoint.js';
import { quoteProvider } from './message-text.js';

/** What a provider said went wrong, from whichever of the common error shapes it used. */
export interface ProviderErrorReport {
  message?: string;
  code?: string;
  type?: string;
}

/** Reads an error body: OpenAI/xAI `{error:{message,code,type}}`, `{error:"…"}`, vLLM, FastAPI, or text. */
export function readErrorBody(text: string): ProviderErrorReport {
  const parsed = tryParseJson(text);
  if (parsed.ok && isRecord(parsed.value)) return reportFromObject(parsed.value);
  const trimmed = text.trim();
  // An HTML error page (a proxy's, usually) says nothing useful in one line.
  if (trimmed === '' || trimmed.startsWith('<')) return {};
  return { message: trimmed };
}

export function reportFromObject(body: JsonRecord): ProviderErrorReport {
  const inner = body['error'];
  if (typeof inner === 'string') return { message: inner };
  const source = isRecord(inner) ? inner : body;
  const code = source['code'];
  return {
    message: stringField(source, 'message') ?? stringField(source, 'detail'),
    code: typeof code === 'string' || typeof code === 'number' ? String(code) : undefined,
    type: stringField(source, 'type'),
  };
}

const NOT_FOUND_WORDING = /does not exist|doesn't exist|not found|unknown model|no such model/i;

function saysModelIsUnknown(report: ProviderErrorReport, model: string): boolean {
  if (report.code === 'model_not_found') return true;
  return report.message !== undefined && report.message.includes(model) && NOT_FOUND_WORDING.test(report.message);
}

function isQuotaExhausted(report: ProviderErrorReport): boolean {
  return report.code === 'insufficient_quota' || report.type === 'insufficient_quota';
}

/** 429 (unless the quota is gone for good) and 5xx are worth another attempt; other 4xx are not. */
export function isRetryableStatus(status: number, report: ProviderErrorReport): boolean {
  if (status === 429) return !isQuotaExhausted(report);
  return status >= 500;
}

/** The provider's own words, fit to show: one line, the key redacted, a labelled endpoint's address hidden. */
function providerText(endpoint: ModelEndpoint, report: ProviderErrorReport): string | undefined {
  return report.message ? quoteProvider(concealAddress(report.message, endpoint), endpoint.apiKey) : undefined;
}

function detail(endpoint: ModelEndpoint, report: ProviderErrorReport): string {
  const text = providerText(endpoint, report);
  return text ? `: ${text}` : '';
}

function attemptsNote(attempts: number): string {
  return attempts > 1 ? ` after ${attempts} attempts` : '';
}

/** The typed error for a non-2xx answer, once no retry remains or none is warranted. */
export function errorForStatus(
  endpoint: ModelEndpoint,
  status: number,
  report: ProviderErrorReport,
  retryAfterMs: number | undefined,
  attempts: number,
): ModelError {
  const { provider, model } = endpoint;
  const url = endpointLabel(endpoint);
  const said = detail(endpoint, report);
  const providerMessage = providerText(endpoint, report);
  const details = { provider, status, ...(providerMessage ? { providerMessage } : {}) };
  if (status === 401 || status === 403) {
    return new ModelAuthError(
      `the model provider refused the API key for ${provider} (HTTP ${status} from ${url}${said})`,
      details,
    );
  }
  if (status === 404 || (status >= 400 && status < 500 && saysModelIsUnknown(report, model))) {
    return new ModelNotFoundError(`unknown model '${model}' at ${url} (HTTP ${status}${said})`, model, details);
  }
  if (status === 429) {
    const what = isQuotaExhausted(report) ? 'has no quota left for this account' : 'is rate limiting requests';
    return new ModelRateLimitError(
      `the model provider ${provider} ${what} (HTTP 429${said})${attemptsNote(attempts)}`,
      retryAfterMs,
      details,
    );
  }
  if (status >= 500) {
    return new ModelServerError(
      `the model provider ${provider} failed (HTTP ${status} from ${url}${said})${attemptsNote(attempts)}`,
      details,
    );
  }
  return new ModelRequestError(`the model provider ${provider} rejected the request (HTTP ${status}${said})`, details);
}

/** An error the provider reported inside a 200 answer (a stream's error event, `response.failed`). */
export function errorForReport(endpoint: ModelEndpoint, report: ProviderErrorReport): ModelError {
  const { provider, model } = endpoint;
  const said = detail(endpoint, report);
  const providerMessage = providerText(endpoint, report);
  const details = { provider, ...(providerMessage ? { providerMessage } : {}) };
  const kind = `${report.code ?? ''} ${report.type ?? ''}`;
  if (/rate_limit|insufficient_quota/.test(kind)) {
    return new ModelRateLimitError(`the model provider ${provider} is rate limiting requests${said}`, undefined, details);
  }
  if (saysModelIsUnknown(report, model)) {
    return new ModelNotFoundError(`unknown model '${model}' at ${endpointLabel(endpoint)}${said}`, model, details);
  }
  if (/invalid_request/.test(kind)) {
    return new ModelRequestError(`the model provider ${provider} rejected the request${said}`, details);
  }
  return new ModelServerError(`the model provider ${provider} reported an error${said || ' without a message'}`, details);
}
