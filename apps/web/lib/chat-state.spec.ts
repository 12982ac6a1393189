import { describe, expect, it } from '@jest/globals';
import type { MessageView } from '@lazyboy/contracts';
import { EMPTY_CHAT, chatReducer, type ChatState, type PendingMessage } from './chat-state.js';

function message(id: string, second: number, extra: Partial<MessageView> = {}): MessageView {
  return {
    id,
    chatId: 's1',
    role: 'assistant',
    text: id,
    progress: false,
    clientNonce: null,
    authorUserId: null,
    agentId: null,
    runId: null,
    notice: null,
    createdAt: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`,
    ...extra,
  };
}

const pending = (clientNonce: string): PendingMessage => ({
  clientNonce,
  text: 'hi',
  createdAt: '2026-01-01T00:00:30.000Z',
  state: 'sending',
  error: null,
});

describe('chatReducer', () => {
  it('orders messages by time and never shows one twice', () => {
    let state: ChatState = chatReducer(EMPTY_CHAT, {
      type: 'latest',
      items: [message('a', 1), message('b', 2)],
      nextBefore: 'a',
    });
    state = chatReducer(state, { type: 'received', message: message('b', 2) });
    state = chatReducer(state, { type: 'received', message: message('c', 3) });
    state = chatReducer(state, { type: 'older', items: [message('z', 0)], nextBefore: null });
    expect(state.messages.map((m) => m.id)).toEqual(['z', 'a', 'b', 'c']);
    expect(state.nextBefore).toBeNull();
  });

  it('replaces the optimistic message with the confirmed one, by clientNonce', () => {
    let state = chatReducer({ ...EMPTY_CHAT, status: 'ready' }, { type: 'pending', message: pending('web-1') });
    state = chatReducer(state, { type: 'failed', clientNonce: 'web-1', error: 'offline' });
    expect(state.pending[0]).toMatchObject({ state: 'failed', error: 'offline' });
    state = chatReducer(state, { type: 'retrying', clientNonce: 'web-1' });
    expect(state.pending[0]).toMatchObject({ state: 'sending', error: null });
    state = chatReducer(state, { type: 'received', message: message('m', 31, { role: 'user', clientNonce: 'web-1' }) });
    expect(state.pending).toEqual([]);
    expect(state.messages.map((m) => m.id)).toEqual(['m']);
  });

  it('keeps messages that arrived by event while the page loaded', () => {
    let state = chatReducer(EMPTY_CHAT, { type: 'received', message: message('late', 9) });
    state = chatReducer(state, { type: 'latest', items: [message('a', 1)], nextBefore: null });
    expect(state.messages.map((m) => m.id)).toEqual(['a', 'late']);
    expect(state.status).toBe('ready');
  });

  it('empties the chat on a clear but keeps what is still being sent', () => {
    let state = chatReducer(EMPTY_CHAT, { type: 'latest', items: [message('a', 1)], nextBefore: null });
    state = chatReducer(state, { type: 'pending', message: pending('web-2') });
    state = chatReducer(state, { type: 'cleared' });
    expect(state.messages).toEqual([]);
    expect(state.pending).toHaveLength(1);
  });
});
