'use client';

import { useCallback, useEffect, useState } from 'react';
import type { ChatView } from '@lazyboy/contracts';
import { isAbort } from './api';
import { chats as chatsApi } from './endpoints';

function newestFirst(list: ChatView[]): ChatView[] {
  return [...list].sort((a, b) => (a.lastMessageAt < b.lastMessageAt ? 1 : a.lastMessageAt > b.lastMessageAt ? -1 : 0));
}

export interface Chats {
  /** Most recently active first; null while loading. */
  list: ChatView[] | null;
  error: unknown;
  reload(): void;
  put(chat: ChatView): void;
  drop(chatId: string): void;
  /** A message was written in the chat: it moves to the top. */
  touch(chatId: string, at: string): void;
}

/** An agent's chats. Nothing pushes chat changes, so the list changes only by what this tab does. */
export function useChats(agentId: string): Chats {
  const [list, setList] = useState<ChatView[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    chatsApi
      .list(agentId, abort.signal)
      .then((items) => {
        setList(newestFirst(items));
        setError(null);
      })
      .catch((failure: unknown) => {
        if (!isAbort(failure)) setError(failure);
      });
    return () => abort.abort();
  }, [agentId, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const put = useCallback(
    (chat: ChatView) => setList((current) => newestFirst([...(current ?? []).filter((s) => s.id !== chat.id), chat])),
    [],
  );
  const drop = useCallback((chatId: string) => setList((current) => current?.filter((s) => s.id !== chatId) ?? null), []);
  const touch = useCallback(
    (chatId: string, at: string) =>
      setList((current) => {
        if (!current) return current;
        const chat = current.find((s) => s.id === chatId);
        if (!chat || chat.lastMessageAt >= at) return current;
        return newestFirst(current.map((s) => (s.id === chatId ? { ...s, lastMessageAt: at } : s)));
      }),
    [],
  );
  return { list, error, reload, put, drop, touch };
}
