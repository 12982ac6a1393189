import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { ApiErrorBody, ApiErrorCode } from '@lazyboy/contracts';
import type { Response } from 'express';
import { WorkerCallError } from '../computers/worker-client.js';
import { ApiError } from './api-error.js';

const CODE_BY_STATUS: Record<number, ApiErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'BAD_REQUEST',
  415: 'BAD_REQUEST',
  429: 'RATE_LIMITED',
  503: 'NOT_READY',
};

/**
 * Every HTTP error leaves the API as `{ error: { code, message, reason?, details? } }` with a stable code: our
 * own ApiErrors as they are, a worker's refusal as CONFLICT computer_refused, Nest's and Express's HTTP errors
 * (unknown route, malformed JSON) mapped by status, anything else as INTERNAL with the cause logged but not sent.
 */
@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiError');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const res = host.switchToHttp().getResponse<Response>();
    const { status, body, headers } = toErrorResponse(exception);
    if (status >= 500) this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(status).json(body);
  }
}

export function toErrorResponse(exception: unknown): { status: number; body: ApiErrorBody; headers: Record<string, string> } {
  if (exception instanceof ApiError) {
    const { code, message, reason, details } = exception;
    // Absent rather than undefined: the body stays as small as before for errors without them.
    const error = { code, message, ...(reason === undefined ? {} : { reason }), ...(details === undefined ? {} : { details }) };
    return { status: exception.status, body: { error }, headers: exception.headers };
  }
  // Before the status pass-through below: a worker's status describes the computer, not the caller's request
  // (a worker's 401 is no logout).
  if (exception instanceof WorkerCallError) return workerErrorResponse(exception);
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'BAD_REQUEST');
    return { status, body: { error: { code, message: httpMessage(exception) } }, headers: {} };
  }
  // Express's body parser throws plain errors carrying a status (malformed JSON, body too large).
  const status = (exception as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? 'BAD_REQUEST';
    const message = status === 400 ? 'the request body is not valid JSON' : ((exception as Error).message ?? 'bad request');
    return { status, body: { error: { code, message } }, headers: {} };
  }
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'internal error' } }, headers: {} };
}

function workerErrorResponse(error: WorkerCallError): { status: number; body: ApiErrorBody; headers: Record<string, string> } {
  if (error.code === 'UNREACHABLE' || error.code === 'BAD_RESPONSE' || error.status >= 500) {
    return {
      status: 503,
      body: { error: { code: 'NOT_READY', message: 'the computer did not answer', details: { workerCode: error.code } } },
      headers: {},
    };
  }
  return {
    status: 409,
    body: {
      error: {
        code: 'CONFLICT',
        message: `the computer refused: ${error.message}`,
        reason: 'computer_refused',
        details: { workerCode: error.code },
      },
    },
    headers: {},
  };
}

function httpMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}
