'use client';

import { useCallback, useEffect, useState } from 'react';
import { isAbort } from '../../lib/api';

export interface AdminData<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload(): void;
  /** Replaces what is shown (after an action answered with the changed row). */
  set(update: (current: T | null) => T | null): void;
}

/** One dashboard table's data: read on mount and on demand (no live updates: the admin refreshes). */
export function useAdminData<T>(load: (signal: AbortSignal) => Promise<T>): AdminData<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    load(abort.signal)
      .then((value) => {
        setData(value);
        setError(null);
      })
      .catch((failure: unknown) => {
        if (!isAbort(failure)) setError(failure);
      })
      .finally(() => {
        if (!abort.signal.aborted) setLoading(false);
      });
    return () => abort.abort();
  }, [load, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { data, error, loading, reload, set: setData };
}
