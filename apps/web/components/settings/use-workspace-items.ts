'use client';

import { useCallback, useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import { isAbort } from '../../lib/api';
import { useShell } from '../../lib/shell-context';

export interface WorkspaceItems<T> {
  /** null until the first answer. */
  items: T[] | null;
  /** The page's own changes (a role changed, a member removed) go straight into the list. */
  setItems: Dispatch<SetStateAction<T[] | null>>;
  /** The last load's failure, null after one that went through. */
  error: unknown;
  reload(): Promise<void>;
}

/** A list of the current workspace's (members, invitations), loaded when the section opens and on reload. */
export function useWorkspaceItems<T>(
  fetch: (workspaceId: string, signal?: AbortSignal) => Promise<{ items: T[] }>,
): WorkspaceItems<T> {
  const { workspace } = useShell();
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(
    async (signal?: AbortSignal) => {
      try {
        setItems((await fetch(workspace.id, signal)).items);
        setError(null);
      } catch (failure) {
        if (!isAbort(failure)) setError(failure);
      }
    },
    [fetch, workspace.id],
  );

  useEffect(() => {
    const abort = new AbortController();
    void load(abort.signal);
    return () => abort.abort();
  }, [load]);

  return { items, setItems, error, reload: useCallback(() => load(), [load]) };
}
