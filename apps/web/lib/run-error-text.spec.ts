import { describe, expect, it } from '@jest/globals';
import { runErrorCodeSchema } from '@lazyboy/contracts';
import { messages } from '../locales/index.js';
import { RUN_ERROR_TEXT, isModelSettingsProblem, runErrorText } from './run-error-text.js';

const zh = messages('zh-TW');
const en = messages('en');

describe('runErrorText', () => {
  it('words every code a run can end with, in both languages, each differently', () => {
    for (const code of runErrorCodeSchema.options) {
      for (const t of [zh, en]) expect(runErrorText(code, t).trim()).not.toBe('');
    }
    expect(new Set(Object.values(RUN_ERROR_TEXT)).size).toBe(runErrorCodeSchema.options.length);
    expect(runErrorText('model_key_refused', zh)).toBe('模型服務拒絕了 API 金鑰：請確認金鑰是否正確、是否還有效。');
  });

  it('gives a code newer than this build, or an old uppercase one, the generic failure', () => {
    expect(runErrorText('EXECUTION_FAILED', zh)).toBe(zh.runError_execution_failed);
    expect(runErrorText('from_the_future', en)).toBe(en.runError_execution_failed);
  });

  it('points at the model settings for what they can fix', () => {
    expect(isModelSettingsProblem('model_key_refused')).toBe(true);
    expect(isModelSettingsProblem('model_not_configured')).toBe(true);
    expect(isModelSettingsProblem('no_progress')).toBe(false);
    expect(isModelSettingsProblem('execution_failed')).toBe(false);
  });
});
