'use client';

import { useCallback, useEffect, useState } from 'react';
import type { SessionView } from '@lazyboy/contracts';
import { isAbort } from './api';
import { sessions as sessionsApi } from './endpoints';

function newestFirst(list: SessionView[]): SessionView[] {
  return [...list].sort((a, b) => (a.lastMessageAt < b.lastMessageAt ? 1 : a.lastMessageAt > b.lastMessageAt ? -1 : 0));
}

export interface Sessions {
  /** Most recently active first; null while loading. */
  list: SessionView[] | null;
  error: unknown;
  reload(): void;
  put(session: SessionView): void;
  drop(sessionId: string): void;
  /** A message was written in the chat: it moves to the top. */
  touch(sessionId: string, at: string): void;
}

/** An agent's chats. Nothing pushes session changes, so the list changes only by what this tab does. */
export function useSessions(botId: string): Sessions {
  const [list, setList] = useState<SessionView[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    sessionsApi
      .list(botId, abort.signal)
      .then((items) => {
        setList(newestFirst(items));
        setError(null);
      })
      .catch((failure: unknown) => {
        if (!isAbort(failure)) setError(failure);
      });
    return () => abort.abort();
  }, [botId, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const put = useCallback(
    (session: SessionView) => setList((current) => newestFirst([...(current ?? []).filter((s) => s.id !== session.id), session])),
    [],
  );
  const drop = useCallback((sessionId: string) => setList((current) => current?.filter((s) => s.id !== sessionId) ?? null), []);
  const touch = useCallback(
    (sessionId: string, at: string) =>
      setList((current) => {
        if (!current) return current;
        const session = current.find((s) => s.id === sessionId);
        if (!session || session.lastMessageAt >= at) return current;
        return newestFirst(current.map((s) => (s.id === sessionId ? { ...s, lastMessageAt: at } : s)));
      }),
    [],
  );
  return { list, error, reload, put, drop, touch };
}
