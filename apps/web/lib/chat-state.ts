import type { MessageView } from '@lazyboy/contracts';

// One open chat: the messages the API confirmed plus the ones being sent. A reducer, so message.created
// events, page loads and POST answers can arrive in any order and still give one list without doubles.

/** A message typed here and not confirmed by the API yet; `clientNonce` ties it to its eventual MessageView. */
export interface PendingMessage {
  clientNonce: string;
  text: string;
  createdAt: string;
  state: 'sending' | 'failed';
  error: string | null;
}

export interface ChatState {
  /** Confirmed messages, oldest first. */
  messages: MessageView[];
  pending: PendingMessage[];
  /** Cursor for older messages; null once the first message is loaded. */
  nextBefore: string | null;
  status: 'loading' | 'ready' | 'error';
  error: string | null;
}

export type ChatAction =
  /** The newest page: a first load, or a reload after the realtime connection came back. */
  | { type: 'latest'; items: MessageView[]; nextBefore: string | null }
  | { type: 'older'; items: MessageView[]; nextBefore: string | null }
  | { type: 'load-failed'; error: string }
  | { type: 'received'; message: MessageView }
  | { type: 'cleared' }
  | { type: 'pending'; message: PendingMessage }
  | { type: 'retrying'; clientNonce: string }
  | { type: 'failed'; clientNonce: string; error: string };

export const EMPTY_CHAT: ChatState = { messages: [], pending: [], nextBefore: null, status: 'loading', error: null };

/** A chat that does not exist yet (the first message creates it): nothing to load. */
export const DRAFT_CHAT: ChatState = { ...EMPTY_CHAT, status: 'ready' };

function byTime(a: MessageView, b: MessageView): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function mergeMessages(current: readonly MessageView[], incoming: readonly MessageView[]): MessageView[] {
  const byId = new Map(current.map((m) => [m.id, m]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort(byTime);
}

function withoutConfirmed(pending: readonly PendingMessage[], messages: readonly MessageView[]): PendingMessage[] {
  const nonces = new Set(messages.map((m) => m.clientNonce).filter((n): n is string => n !== null));
  return pending.filter((p) => !nonces.has(p.clientNonce));
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'latest': {
      // Messages that arrived by event after the page was read are newer than its newest one: keep them.
      // Anything else not on the page is gone (cleared meanwhile) or older (loaded again on demand).
      const newest = action.items.at(-1);
      const later = newest ? state.messages.filter((m) => byTime(m, newest) > 0) : state.messages;
      const messages = mergeMessages(action.items, later);
      return {
        messages,
        pending: withoutConfirmed(state.pending, messages),
        nextBefore: action.nextBefore,
        status: 'ready',
        error: null,
      };
    }
    case 'older':
      return { ...state, messages: mergeMessages(state.messages, action.items), nextBefore: action.nextBefore };
    case 'load-failed':
      return { ...state, status: 'error', error: action.error };
    case 'received':
      return {
        ...state,
        messages: mergeMessages(state.messages, [action.message]),
        pending: withoutConfirmed(state.pending, [action.message]),
      };
    case 'cleared':
      // Messages still being sent were typed after the clear: they stay.
      return { ...state, messages: [], nextBefore: null };
    case 'pending':
      return { ...state, pending: [...state.pending, action.message] };
    case 'retrying':
    case 'failed': {
      const pending = state.pending.map((p) =>
        p.clientNonce !== action.clientNonce
          ? p
          : action.type === 'failed'
            ? { ...p, state: 'failed' as const, error: action.error }
            : { ...p, state: 'sending' as const, error: null },
      );
      return { ...state, pending };
    }
  }
}
