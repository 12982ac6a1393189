import { describe, expect, it } from '@jest/globals';
import { LOCALES, localeFromAcceptLanguage, messages } from '../locales/index.js';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the catalogs', () => {
  it('fill the same placeholders in every language, and leave no string empty', () => {
    const zh = messages('zh-TW');
    for (const locale of LOCALES) {
      const t = messages(locale);
      for (const key of Object.keys(zh) as (keyof typeof zh)[]) {
        expect([key, t[key].trim() === '']).toEqual([key, false]);
        expect([key, placeholders(t[key])]).toEqual([key, placeholders(zh[key])]);
      }
    }
  });

  it('keep Chinese out of the English catalog (but the language picker names each language in itself)', () => {
    const en = messages('en');
    const chinese = Object.entries(en).filter(
      ([key, text]) => key !== 'languageZhTW' && /[\u3000-\u9fff\uff00-\uffef]/.test(text),
    );
    expect(chinese).toEqual([]);
  });
});

describe('localeFromAcceptLanguage', () => {
  it("takes the browser's first language the app speaks", () => {
    expect(localeFromAcceptLanguage('en-US,en;q=0.9')).toBe('en');
    expect(localeFromAcceptLanguage('zh-TW,zh;q=0.9,en;q=0.8')).toBe('zh-TW');
    expect(localeFromAcceptLanguage('zh-Hant-HK')).toBe('zh-TW');
    expect(localeFromAcceptLanguage('fr-FR, de;q=0.8, en-GB;q=0.5')).toBe('en');
    expect(localeFromAcceptLanguage('EN')).toBe('en');
  });

  it('says nothing for a header naming no language of the app, or none at all', () => {
    expect(localeFromAcceptLanguage('fr, de')).toBeUndefined();
    expect(localeFromAcceptLanguage('')).toBeUndefined();
    expect(localeFromAcceptLanguage(null)).toBeUndefined();
    expect(localeFromAcceptLanguage('english')).toBeUndefined();
  });
});
