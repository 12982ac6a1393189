import { describe, expect, it } from '@jest/globals';
import type http from 'node:http';
import { Readable } from 'node:stream';
import {
  filesWriteRequestSchema,
  loginFillRequestSchema,
  LONE_SURROGATE_MESSAGE,
  NUL_CHARACTER_MESSAGE,
  screenTypeRequestSchema,
} from '@lazyboy/contracts';
import { WorkerHttpError } from './errors.js';
import { readJsonBody, validate } from './json-body.js';

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

describe('a body carrying a secret (the vault fill)', () => {
  const secret = 'S3cret-hunter2-'.repeat(7_000); // about 100 KB: over the vault's limit, under the body limit
  const echoed = (error: WorkerHttpError) => JSON.stringify({ message: error.message, body: error.body() });

  it('is refused without repeating any value: too long, wrong types, an unknown step, a bad site', () => {
    const bodies: unknown[] = [
      { slot: 0, fence: 1, step: 'password', site: 'https://bank.example', username: 'ada', password: secret },
      { slot: 0, fence: 1, step: 'password', site: 'https://bank.example', username: [secret], password: { secret } },
      { slot: 0, fence: 1, step: 'pasword', site: 'https://bank.example', username: 'ada', password: secret.slice(0, 40) },
      { slot: 0, fence: 1, step: 'totp', site: 'https://bank.example', code: secret.slice(0, 40) },
      { slot: 0, fence: 1, step: 'password', site: secret.slice(0, 40), username: 'ada', password: 'x' },
      { slot: 0, fence: 1, step: 'password', site: 'https://bank.example/login', username: 'ada', password: secret.slice(0, 40) },
    ];
    for (const body of bodies) {
      const refused = refusal(() => validate(loginFillRequestSchema, body));
      expect([refused.status, refused.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(echoed(refused)).not.toContain('S3cret-hunter2');
    }
  });

  it('is not quoted when its JSON is broken', async () => {
    for (const raw of [`{"password":"${secret.slice(0, 60)}" x}`, `{"password":${secret.slice(0, 60)}}`]) {
      const req = Object.assign(Readable.from([Buffer.from(raw)]), { headers: {} }) as unknown as http.IncomingMessage;
      const refused = await readJsonBody(req).then(
        () => undefined,
        (error: unknown) => error as WorkerHttpError,
      );
      expect(refused?.code).toBe('VALIDATION_FAILED');
      expect(refused?.body().error.details).toEqual({ parse: expect.stringMatching(/^invalid JSON( at position \d+)?$/) });
      expect(echoed(refused!)).not.toContain('S3cret');
    }
  });
});
