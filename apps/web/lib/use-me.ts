'use client';

import { useCallback, useEffect, useState } from 'react';
import { useRouter } from 'next/navigation';
import type { MeView } from '@lazyboy/contracts';
import { ApiError, isAbort, onUnauthenticated } from './api';
import { auth } from './endpoints';

export interface SignedIn {
  me: MeView | null;
  /** Set when /me failed for another reason than being signed out (API down, say). */
  error: unknown;
  setMe(me: MeView): void;
  retry(): void;
}

/**
 * The signed-in person, checked once per page load. Signed out (now, or later: any 401) sends the page to
 * /login; the API enforces access anyway, this only spares people a page of errors.
 */
export function useSignedIn(): SignedIn {
  const router = useRouter();
  const [me, setMe] = useState<MeView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => onUnauthenticated(() => router.replace('/login')), [router]);

  useEffect(() => {
    const abort = new AbortController();
    auth
      .me(abort.signal)
      .then((view) => {
        setMe(view);
        setError(null);
      })
      .catch((failure: unknown) => {
        if (isAbort(failure)) return;
        // A 401 already redirected through onUnauthenticated.
        if (!(failure instanceof ApiError && failure.status === 401)) setError(failure);
      });
    return () => abort.abort();
  }, [attempt]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { me, error, setMe, retry };
}
