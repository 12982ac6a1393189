import type http from 'node:http';
import { safeParseInput } from '@lazyboy/contracts';
import type { z } from 'zod';
import { WorkerHttpError } from './errors.js';

/** Control bodies are small (the largest is a typed text or an eval expression); anything bigger is a mistake. */
export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024;

/**
 * Reads the whole body as JSON. Stops reading (and answers 413) as soon as the limit is passed, so a
 * runaway client cannot make the worker buffer without bound. An empty body reads as `{}`.
 */
export async function readJsonBody(req: http.IncomingMessage, limitBytes = DEFAULT_BODY_LIMIT_BYTES): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) {
      req.destroy();
      throw tooLarge(limitBytes);
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new WorkerHttpError('VALIDATION_FAILED', 'the body is not valid JSON', { parse: parseProblem(error) });
  }
}

/** Validates `value` against `schema`; a mismatch, or text that is not storable (NUL, unpaired surrogates), is a 400 naming every bad field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = safeParseInput(schema, value);
  if (result.success) return result.data;
  const { issues } = result;
  const summary = issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ');
  throw new WorkerHttpError('VALIDATION_FAILED', `invalid request body: ${summary}`, { issues });
}

/**
 * Where the JSON broke, without quoting it: V8's message quotes the text around the fault, and a body
 * may carry a password (the vault's fill), so only the position is repeated.
 */
function parseProblem(error: unknown): string {
  const position = /\bposition (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  return position === undefined ? 'invalid JSON' : `invalid JSON at position ${position}`;
}

function tooLarge(limitBytes: number): WorkerHttpError {
  return new WorkerHttpError('PAYLOAD_TOO_LARGE', `the body is larger than ${limitBytes} bytes`);
}
