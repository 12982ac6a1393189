import { describe, expect, it } from '@jest/globals';
import { WorkerCallError } from '../computers/worker-client.js';
import { ApiError, conflict } from './api-error.js';
import { toErrorResponse } from './api-error.filter.js';

describe('toErrorResponse', () => {
  it('never passes a worker status through: a worker 401 is no logout', () => {
    const { status, body } = toErrorResponse(new WorkerCallError('UNAUTHENTICATED', 401, 'bad control token'));
    expect(status).toBe(409);
    expect(body.error).toMatchObject({
      code: 'CONFLICT',
      reason: 'computer_refused',
      details: { workerCode: 'UNAUTHENTICATED' },
    });
  });

  it('answers 503 NOT_READY when the computer did not answer or failed', () => {
    for (const error of [
      new WorkerCallError('UNREACHABLE', 0, 'connect ECONNREFUSED'),
      new WorkerCallError('BAD_RESPONSE', 502, 'not JSON'),
      new WorkerCallError('INTERNAL', 500, 'boom'),
    ]) {
      const { status, body } = toErrorResponse(error);
      expect(status).toBe(503);
      expect(body.error).toMatchObject({
        code: 'NOT_READY',
        message: 'the computer did not answer',
        details: { workerCode: error.code },
      });
    }
  });

  it('answers 409 CONFLICT with the worker code for the worker refusing the call', () => {
    for (const error of [
      new WorkerCallError('CONTROL_HELD_BY_USER', 423, 'a person has control of this screen'),
      new WorkerCallError('VALIDATION_FAILED', 422, 'bad body'),
    ]) {
      const { status, body } = toErrorResponse(error);
      expect(status).toBe(409);
      expect(body.error).toMatchObject({ code: 'CONFLICT', reason: 'computer_refused', details: { workerCode: error.code } });
    }
  });

  it("sends a conflict's reason next to its message, and no reason key for other errors", () => {
    expect(toErrorResponse(conflict('name_taken', 'an agent named "A" already exists', { name: 'A' }))).toEqual({
      status: 409,
      body: {
        error: { code: 'CONFLICT', message: 'an agent named "A" already exists', reason: 'name_taken', details: { name: 'A' } },
      },
      headers: {},
    });
    expect(toErrorResponse(conflict('run_ended', 'the run already ended')).body).toEqual({
      error: { code: 'CONFLICT', message: 'the run already ended', reason: 'run_ended' },
    });
    expect(toErrorResponse(new ApiError('VALIDATION_FAILED', 'invalid body', { issues: [] })).body).toEqual({
      error: { code: 'VALIDATION_FAILED', message: 'invalid body', details: { issues: [] } },
    });
  });

  it('keeps ApiErrors and plain errors as before', () => {
    expect(toErrorResponse(new ApiError('NOT_FOUND', 'agent not found')).status).toBe(404);
    expect(toErrorResponse(new Error('x'))).toMatchObject({ status: 500, body: { error: { code: 'INTERNAL' } } });
  });
});
