import { describe, expect, it } from '@jest/globals';
import type { ChatMessage } from '@lazyboy/contracts';
import { trimForRequest } from './trimming.js';

function exchange(i: number, resultSize: number): ChatMessage[] {
  return [
    { role: 'assistant', content: null, toolCalls: [{ id: `c${i}`, name: 'read_file', arguments: `{"path":"f${i}"}` }] },
    { role: 'tool', toolCallId: `c${i}`, content: `result ${i} `.padEnd(resultSize, 'x') },
  ];
}

function pairedCallsIntact(messages: readonly ChatMessage[]): boolean {
  const results = new Set(messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  const calls = messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
  return calls.every((id) => results.has(id)) && [...results].every((id) => calls.includes(id));
}

describe('trimForRequest', () => {
  it('returns an equal copy when the history fits', () => {
    const history: ChatMessage[] = [{ role: 'user', content: 'hi' }, ...exchange(1, 100)];
    const trimmed = trimForRequest(history, { maxChars: 10_000 });
    expect(trimmed).toEqual(history);
    expect(trimmed).not.toBe(history);
  });

  it('shrinks long tool results first and never touches the stored history', () => {
    const history: ChatMessage[] = [{ role: 'user', content: 'Read every file. Never delete anything.' }];
    for (let i = 0; i < 10; i++) history.push(...exchange(i, 20_000));
    const snapshot = structuredClone(history);

    const trimmed = trimForRequest(history, { maxChars: 120_000, keepRecent: 4, toolResultChars: 2_000 });

    expect(history).toEqual(snapshot);
    expect(trimmed).toHaveLength(history.length);
    const first = trimmed[2] as { content: string };
    expect(first.content.length).toBeLessThan(2_100);
    expect(first.content).toContain('characters trimmed');
    // The recent window is untouched.
    expect(trimmed.at(-1)).toEqual(history.at(-1));
  });

  it('then drops the oldest tool exchanges whole, keeping every user message and every call/result pair', () => {
    const history: ChatMessage[] = [];
    for (let i = 0; i < 50; i++) {
      history.push({ role: 'user', content: `constraint ${i}: stay polite` });
      history.push(...exchange(i, 3_000));
    }
    const trimmed = trimForRequest(history, { maxChars: 30_000, keepRecent: 6, toolResultChars: 3_000 });

    const users = trimmed.filter((m) => m.role === 'user' && String(m.content).startsWith('constraint'));
    expect(users).toHaveLength(50);
    expect(pairedCallsIntact(trimmed)).toBe(true);
    expect(
      trimmed.some((m) => m.role === 'user' && String(m.content).includes('earlier messages of tool work were left out')),
    ).toBe(true);
    expect(trimmed.slice(-6)).toEqual(history.slice(-6));
    expect(trimmed.length).toBeLessThan(history.length);
  });
});
