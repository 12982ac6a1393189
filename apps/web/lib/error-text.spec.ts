import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { apiErrorReasonSchema, type ApiErrorBody, type ApiErrorReason } from '@lazyboy/contracts';
import { messages } from '../locales/index.js';
import { ApiError, apiRequest } from './api.js';
import { REASON_TEXT, errorText } from './error-text.js';

const zh = messages('zh-TW');
const en = messages('en');

const conflict = (reason?: ApiErrorReason) => new ApiError('CONFLICT', 'the English message', 409, { reason });
const invalid = (details: unknown) => new ApiError('VALIDATION_FAILED', 'invalid body: name: Too small', 400, { details });

/** What apiRequest rejects with when the API answers `body` with `status`. */
async function failureOf(status: number, body: unknown): Promise<unknown> {
  jest.spyOn(globalThis, 'fetch').mockResolvedValue(new Response(JSON.stringify(body), { status }));
  return apiRequest('/api/anything').then(
    () => null,
    (error: unknown) => error,
  );
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe('errorText', () => {
  it("shows a conflict's reason in the person's language, never the API's English", () => {
    expect(errorText(conflict('name_taken'), zh)).toBe('這個工作區已經有同名的 Agent，請換個名稱。');
    expect(errorText(conflict('name_taken'), en)).toBe(en.errorConflictNameTaken);
    expect(errorText(conflict('last_owner'), zh)).toBe(zh.errorConflictLastOwner);
    expect(errorText(conflict('computer_busy'), zh)).not.toContain('English');
  });

  it('gives a conflict without a reason, or with one this build does not know, the generic text', () => {
    expect(errorText(conflict(), zh)).toBe('此動作與目前的狀態衝突，請重新整理後再試一次。');
    expect(errorText(conflict('made_up' as ApiErrorReason), zh)).toBe(zh.errorConflict);
    expect(errorText(conflict('toString' as ApiErrorReason), en)).toBe(en.errorConflict);
  });

  it("keeps the API's reason and details on the client error, and reads a newer API's reason as none", async () => {
    const body: ApiErrorBody = { error: { code: 'CONFLICT', message: 'x', reason: 'run_ended', details: { a: 1 } } };
    const known = await failureOf(409, body);
    expect(known).toMatchObject({ code: 'CONFLICT', status: 409, reason: 'run_ended', details: { a: 1 } });
    expect(errorText(known, zh)).toBe(zh.errorConflictRunEnded);

    const newer = await failureOf(409, { error: { code: 'CONFLICT', message: 'x', reason: 'from_the_future' } });
    expect(newer).toMatchObject({ code: 'CONFLICT', reason: undefined });
    expect(errorText(newer, zh)).toBe(zh.errorConflict);
  });

  it('names the bad fields of refused input, each once', async () => {
    const issues = [
      { path: 'name', message: 'Too small' },
      { path: 'members.0.email', message: 'Invalid email' },
      { path: 'name', message: 'Too long' },
    ];
    expect(errorText(invalid({ issues }), zh)).toBe('輸入內容有誤：name、members.0.email');
    expect(errorText(invalid({ issues }), en)).toBe('Some input is not valid: name, members.0.email');
    expect(errorText(invalid({ issues: [{ path: ['steps', 2, 'title'], message: 'Required' }] }), zh)).toBe(
      '輸入內容有誤：steps.2.title',
    );
    const fromApi = await failureOf(400, { error: { code: 'VALIDATION_FAILED', message: 'invalid body', details: { issues } } });
    expect(errorText(fromApi, zh)).toBe('輸入內容有誤：name、members.0.email');
  });

  it('names the fields of the settings forms as the page labels them', () => {
    const issues = [
      { path: 'modelSettings.baseUrl', message: 'the base URL is on loopback' },
      { path: 'timezone', message: 'not an IANA time zone name' },
    ];
    expect(errorText(invalid({ issues }), zh)).toBe('輸入內容有誤：端點網址（Base URL）、時區');
    expect(errorText(invalid({ issues: [{ path: 'modelApiKey', message: 'x' }] }), en)).toBe('Some input is not valid: API key');
  });

  it('says the input is wrong without field names when the details name none', () => {
    for (const details of [undefined, null, 'x', { issues: 'x' }, { issues: [{ path: '', message: 'Expected object' }] }]) {
      expect(errorText(invalid(details), zh)).toBe(zh.errorValidation);
    }
  });

  it("shows a refusal's reason in the person's language, and a refusal without one as not allowed", () => {
    const refused = (reason?: ApiErrorReason) => new ApiError('FORBIDDEN', 'sign-up needs an invitation', 403, { reason });
    expect(errorText(refused('signup_invitation_required'), zh)).toBe(zh.errorSignupInvitationRequired);
    expect(errorText(refused('signup_closed'), en)).toBe(en.errorSignupClosed);
    expect(errorText(refused(), zh)).toBe(zh.errorForbidden);
    expect(errorText(refused('made_up' as ApiErrorReason), en)).toBe(en.errorForbidden);
  });

  it('localizes a bad request and anything that is no API error', () => {
    expect(errorText(new ApiError('BAD_REQUEST', 'the request body is not valid JSON', 400), zh)).toBe(zh.errorBadRequest);
    expect(errorText(new Error('boom'), en)).toBe(en.errorUnexpected);
  });

  it('has a text of its own for every reason, in both languages', () => {
    for (const reason of apiErrorReasonSchema.options) {
      for (const t of [zh, en]) {
        const text = errorText(conflict(reason), t);
        expect(text.trim()).not.toBe('');
        expect(text).not.toBe(t.errorConflict);
      }
    }
    expect(new Set(Object.values(REASON_TEXT)).size).toBe(apiErrorReasonSchema.options.length);
  });
});
