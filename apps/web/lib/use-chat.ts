'use client';

import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { RunView } from '@lazyboy/contracts';
import { isAbort } from './api';
import { DRAFT_CHAT, EMPTY_CHAT, chatReducer, type ChatState, type PendingMessage } from './chat-state';
import { chats as chatsApi } from './endpoints';
import { errorText } from './error-text';
import { useT } from './i18n';
import { newClientNonce } from './nonce';
import { useRealtimeEvents, useRealtimeRoom } from './realtime';
import { createSerialQueue } from './serial-queue';

export interface ChatCallbacks {
  /** Creates the chat for the first message of a draft; resolves with its id. */
  createChat(firstText: string): Promise<string>;
  /** The API accepted a message: its run joins the workspace's runs. */
  onRun(run: RunView): void;
  /** Something was written in the chat (it moves up the chat list). */
  onActivity(chatId: string, at: string): void;
}

export interface Chat extends ChatState {
  loadingOlder: boolean;
  send(text: string): void;
  retry(message: PendingMessage): void;
  loadOlder(): void;
  reload(): void;
}

const PAGE = 50;

/**
 * One chat's messages: read once, then kept by message.created / messages.cleared events. Sending is
 * optimistic: the message shows at once with its clientNonce, which a retry reuses, so the API (which
 * dedupes by nonce) never stores it twice however often it is retried. Posts (retries included) go out one
 * at a time, in the order they were sent, so the API stores them in that order.
 */
export function useChat(chatId: string | null, callbacks: ChatCallbacks): Chat {
  const t = useT();
  const [state, dispatch] = useReducer(chatReducer, chatId ? EMPTY_CHAT : DRAFT_CHAT);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const chatIdRef = useRef(chatId);
  const creating = useRef<Promise<string> | null>(null);
  // One per chat: the view is remounted for another chat, so this never holds one chat behind another.
  const [deliveries] = useState(createSerialQueue);
  const loaded = useRef(false);
  const latestCallbacks = useRef(callbacks);
  useEffect(() => {
    latestCallbacks.current = callbacks;
    chatIdRef.current = chatId ?? chatIdRef.current;
  });

  const loadLatest = useCallback(
    async (id: string, signal?: AbortSignal) => {
      try {
        const page = await chatsApi.messages(id, { limit: PAGE }, signal);
        dispatch({ type: 'latest', items: page.items, nextBefore: page.nextBefore });
        loaded.current = true;
      } catch (error) {
        if (!isAbort(error)) dispatch({ type: 'load-failed', error: errorText(error, t) });
      }
    },
    [t],
  );

  useEffect(() => {
    if (!chatId) return;
    const abort = new AbortController();
    void loadLatest(chatId, abort.signal);
    return () => abort.abort();
  }, [chatId, loadLatest]);

  useRealtimeRoom(chatId ? { kind: 'chat', id: chatId } : null, (initial) => {
    // The first join only needs a reload when the first read may have happened before it.
    if (chatId && (!initial || loaded.current)) void loadLatest(chatId);
  });
  useRealtimeEvents((event) => {
    if (!chatId) return;
    if (event.type === 'message.created' && event.message.chatId === chatId) {
      dispatch({ type: 'received', message: event.message });
      latestCallbacks.current.onActivity(chatId, event.message.createdAt);
    } else if (event.type === 'messages.cleared' && event.chatId === chatId) {
      dispatch({ type: 'cleared' });
    }
  });

  const ensureChat = useCallback(async (firstText: string): Promise<string> => {
    if (chatIdRef.current) return chatIdRef.current;
    // Two quick messages in a draft create one chat, not two.
    creating.current ??= latestCallbacks.current.createChat(firstText).then(
      (id) => {
        chatIdRef.current = id;
        return id;
      },
      (error: unknown) => {
        creating.current = null;
        throw error;
      },
    );
    return creating.current;
  }, []);

  const deliver = useCallback(
    async (clientNonce: string, text: string) => {
      try {
        const { id, answer } = await deliveries.run(async () => {
          const target = await ensureChat(text);
          return { id: target, answer: await chatsApi.post(target, { text, clientNonce }) };
        });
        dispatch({ type: 'received', message: answer.message });
        latestCallbacks.current.onRun(answer.run);
        latestCallbacks.current.onActivity(id, answer.message.createdAt);
      } catch (error) {
        dispatch({ type: 'failed', clientNonce, error: errorText(error, t) });
      }
    },
    [ensureChat, deliveries, t],
  );

  const send = useCallback(
    (text: string) => {
      const clientNonce = newClientNonce();
      dispatch({
        type: 'pending',
        message: { clientNonce, text, createdAt: new Date().toISOString(), state: 'sending', error: null },
      });
      void deliver(clientNonce, text);
    },
    [deliver],
  );

  const retry = useCallback(
    (message: PendingMessage) => {
      dispatch({ type: 'retrying', clientNonce: message.clientNonce });
      void deliver(message.clientNonce, message.text);
    },
    [deliver],
  );

  const loadOlder = useCallback(() => {
    const id = chatIdRef.current;
    if (!id || !state.nextBefore || loadingOlder) return;
    setLoadingOlder(true);
    chatsApi
      .messages(id, { limit: PAGE, before: state.nextBefore })
      .then((page) => dispatch({ type: 'older', items: page.items, nextBefore: page.nextBefore }))
      .catch((error: unknown) => dispatch({ type: 'load-failed', error: errorText(error, t) }))
      .finally(() => setLoadingOlder(false));
  }, [state.nextBefore, loadingOlder, t]);

  const reload = useCallback(() => {
    if (chatIdRef.current) void loadLatest(chatIdRef.current);
  }, [loadLatest]);

  return { ...state, loadingOlder, send, retry, loadOlder, reload };
}
