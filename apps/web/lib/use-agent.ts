'use client';

import { useEffect, useEffectEvent, useState } from 'react';
import type { AgentView } from '@lazyboy/contracts';
import { isAbort } from './api';
import { agents as agentsApi } from './endpoints';
import { useShell } from './shell-context';

export interface AgentLookup {
  /** The agent, from the workspace's list; null until it is there. */
  agent: AgentView | null;
  /** Neither in the list nor in any of the person's workspaces. */
  missing: boolean;
}

/**
 * The agent a page is about (/agents/[agentId]…). One not in the list is fetched by id: created in another tab
 * since the list was read, it joins the list; in another of the person's workspaces (a link), that workspace
 * opens (the agent list is per workspace).
 */
export function useAgent(agentId: string): AgentLookup {
  const shell = useShell();
  const agent = shell.agents?.find((b) => b.id === agentId) ?? null;
  const [missing, setMissing] = useState(false);
  const { me, workspace, selectWorkspace, putAgent } = shell;

  const found = useEffectEvent((other: AgentView) => {
    if (other.workspaceId === workspace.id) putAgent(other);
    else if (me.workspaces.some((w) => w.id === other.workspaceId)) selectWorkspace(other.workspaceId, { keepPage: true });
    else setMissing(true);
  });
  const listed = shell.agents !== null;
  const known = agent !== null;
  useEffect(() => {
    if (!listed || known) return;
    const abort = new AbortController();
    agentsApi
      .get(agentId, abort.signal)
      .then((other) => found(other))
      .catch((error: unknown) => {
        if (!isAbort(error)) setMissing(true);
      });
    return () => abort.abort();
  }, [listed, known, agentId]);

  return { agent, missing };
}
