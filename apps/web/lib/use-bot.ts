'use client';

import { useEffect, useEffectEvent, useState } from 'react';
import type { BotView } from '@lazyboy/contracts';
import { isAbort } from './api';
import { bots as botsApi } from './endpoints';
import { useShell } from './shell-context';

export interface BotLookup {
  /** The agent, from the workspace's list; null until it is there. */
  bot: BotView | null;
  /** Neither in the list nor in any of the person's workspaces. */
  missing: boolean;
}

/**
 * The agent a page is about (/agents/[botId]…). One not in the list is fetched by id: created in another tab
 * since the list was read, it joins the list; in another of the person's workspaces (a link), that workspace
 * opens (the agent list is per workspace).
 */
export function useBot(botId: string): BotLookup {
  const shell = useShell();
  const bot = shell.bots?.find((b) => b.id === botId) ?? null;
  const [missing, setMissing] = useState(false);
  const { me, workspace, selectWorkspace, putBot } = shell;

  const found = useEffectEvent((other: BotView) => {
    if (other.workspaceId === workspace.id) putBot(other);
    else if (me.workspaces.some((w) => w.id === other.workspaceId)) selectWorkspace(other.workspaceId, { keepPage: true });
    else setMissing(true);
  });
  const listed = shell.bots !== null;
  const known = bot !== null;
  useEffect(() => {
    if (!listed || known) return;
    const abort = new AbortController();
    botsApi
      .get(botId, abort.signal)
      .then((other) => found(other))
      .catch((error: unknown) => {
        if (!isAbort(error)) setMissing(true);
      });
    return () => abort.abort();
  }, [listed, known, botId]);

  return { bot, missing };
}
