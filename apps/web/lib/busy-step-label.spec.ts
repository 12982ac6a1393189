import { describe, expect, it } from '@jest/globals';
import { busyStepKindSchema } from '@lazyboy/contracts';
import { LOCALES, messages } from '../locales/index.js';
import type { ActingStepKind } from './agent-status.js';
import { busyStepLabel } from './busy-step-label.js';

const ACTING = busyStepKindSchema.options.filter(
  (kind): kind is ActingStepKind => kind !== 'thinking' && kind !== 'booting' && kind !== 'waking',
);

describe('busyStepLabel', () => {
  it('words every tool step in Traditional Chinese and English, with and without its argument', () => {
    for (const locale of LOCALES) {
      const t = messages(locale);
      for (const kind of ACTING) {
        for (const step of [{ kind }, { kind, target: '7' }]) {
          const label = busyStepLabel(step, t);
          expect(label.trim()).not.toBe('');
          expect(label).not.toMatch(/[{}]/);
        }
      }
    }
  });

  it('names the argument where the wording has room for it', () => {
    const zh = messages('zh-TW');
    expect(busyStepLabel({ kind: 'browser_click', target: '3' }, zh)).toBe('瀏覽器：點擊第 3 項');
    expect(busyStepLabel({ kind: 'browser_click' }, zh)).toBe('瀏覽器：點擊');
    expect(busyStepLabel({ kind: 'shell', target: 'ls -la' }, zh)).toBe('執行指令：ls -la');
    expect(busyStepLabel({ kind: 'browser_open', target: 'mail.example.com/inbox' }, messages('en'))).toBe(
      'Browser: opening mail.example.com/inbox',
    );
    // A kind that never names an argument ignores one.
    expect(busyStepLabel({ kind: 'desktop_type', target: 'hunter2' }, zh)).toBe('桌面：輸入文字');
    expect(busyStepLabel({ kind: 'file_read', target: '  ' }, zh)).toBe('讀取檔案');
  });
});
