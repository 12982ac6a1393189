import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { LONE_SURROGATE_MESSAGE, NUL_CHARACTER_MESSAGE, safeParseInput, textProblem, unsafeTextIssues } from './input-text.js';

describe('textProblem', () => {
  it.each([
    ['plain ASCII', 'hello', undefined],
    ['Chinese', '你好，世界', undefined],
    ['an emoji (a surrogate pair)', 'ok 👍', undefined],
    ['an empty string', '', undefined],
    ['a NUL', 'a\u0000b', NUL_CHARACTER_MESSAGE],
    ['a lone high surrogate', 'a\uD83Db', LONE_SURROGATE_MESSAGE],
    ['a lone high surrogate at the end', 'ab\uD83D', LONE_SURROGATE_MESSAGE],
    ['a lone low surrogate', '\uDC4Dab', LONE_SURROGATE_MESSAGE],
    ['a pair in the wrong order', '\uDC4D\uD83D', LONE_SURROGATE_MESSAGE],
    ['two pairs in a row', '👍👍', undefined],
    ['a pair and a stray low surrogate', '👍\uDC4D', LONE_SURROGATE_MESSAGE],
  ])('%s', (_name, text, expected) => {
    expect(textProblem(text)).toBe(expected);
  });
});

describe('unsafeTextIssues', () => {
  it('names every bad string and key by its path, in document order', () => {
    const value = {
      ok: 'fine',
      text: 'x\u0000',
      nested: { list: ['fine', '\uD800', { deep: '\u0000' }] },
      record: { 'bad\u0000key': 'hidden', good: 'fine' },
    };
    expect(unsafeTextIssues(value)).toEqual([
      { path: 'text', message: NUL_CHARACTER_MESSAGE },
      { path: 'nested.list.1', message: LONE_SURROGATE_MESSAGE },
      { path: 'nested.list.2.deep', message: NUL_CHARACTER_MESSAGE },
      { path: 'record', message: `keys ${NUL_CHARACTER_MESSAGE}` },
    ]);
  });

  it('checks a bare string, null-prototype query objects, and leaves non-text values alone', () => {
    expect(unsafeTextIssues('\u0000')).toEqual([{ path: '', message: NUL_CHARACTER_MESSAGE }]);
    const query = Object.assign(Object.create(null) as Record<string, unknown>, { action: '\u0000' });
    expect(unsafeTextIssues(query)).toEqual([{ path: 'action', message: NUL_CHARACTER_MESSAGE }]);
    expect(unsafeTextIssues({ n: 1, b: true, nothing: null, buffer: Buffer.from([0]), when: new Date(0) })).toEqual([]);
  });

  it('walks a deeply nested value without overflowing the stack, and lists at most 20 issues', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const issues = unsafeTextIssues(deep);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe(`${'0.'.repeat(100)}…`);
    expect(unsafeTextIssues(Array.from({ length: 1_000 }, () => '\u0000'))).toHaveLength(20);
  });
});

describe('safeParseInput', () => {
  const schema = z.strictObject({ name: z.string().min(1), count: z.number().optional() });

  it('parses storable input with the schema', () => {
    expect(safeParseInput(schema, { name: 'ok' })).toEqual({ success: true, data: { name: 'ok' } });
    expect(safeParseInput(schema, { name: '' })).toEqual({
      success: false,
      issues: [{ path: 'name', message: expect.any(String) }],
    });
  });

  it('refuses unstorable text before the schema runs, even where the schema would look no further', () => {
    expect(safeParseInput(schema, { name: 'a\u0000' })).toEqual({
      success: false,
      issues: [{ path: 'name', message: NUL_CHARACTER_MESSAGE }],
    });
    const anything = z.record(z.string(), z.unknown());
    expect(safeParseInput(anything, { free: { form: ['\uDFFF'] } })).toEqual({
      success: false,
      issues: [{ path: 'free.form.0', message: LONE_SURROGATE_MESSAGE }],
    });
  });
});
