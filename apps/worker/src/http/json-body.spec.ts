import { describe, expect, it } from '@jest/globals';
import {
  filesWriteRequestSchema,
  LONE_SURROGATE_MESSAGE,
  NUL_CHARACTER_MESSAGE,
  screenTypeRequestSchema,
} from '@lazyboy/contracts';
import { WorkerHttpError } from './errors.js';
import { validate } from './json-body.js';

function refusal(run: () => unknown): WorkerHttpError {
  try {
    run();
  } catch (error) {
    if (error instanceof WorkerHttpError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('validate (every control body)', () => {
  it('passes storable text, Chinese and emoji included', () => {
    expect(validate(screenTypeRequestSchema, { slot: 0, fence: 1, text: '你好 👍' })).toEqual({
      slot: 0,
      fence: 1,
      text: '你好 👍',
    });
  });

  it('refuses a NUL or an unpaired surrogate with a 400 naming the field', () => {
    const nul = refusal(() => validate(screenTypeRequestSchema, { slot: 0, fence: 1, text: 'a\u0000b' }));
    expect([nul.status, nul.code, nul.details]).toEqual([
      400,
      'VALIDATION_FAILED',
      { issues: [{ path: 'text', message: NUL_CHARACTER_MESSAGE }] },
    ]);
    expect(nul.message).toBe(`invalid request body: text: ${NUL_CHARACTER_MESSAGE}`);
    const lone = refusal(() => validate(filesWriteRequestSchema, { slot: 0, fence: 1, path: 'notes\uDC00.txt', content: 'x' }));
    expect(lone.details).toEqual({ issues: [{ path: 'path', message: LONE_SURROGATE_MESSAGE }] });
  });
});
