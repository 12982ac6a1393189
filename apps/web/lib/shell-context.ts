'use client';

import { createContext, useContext } from 'react';
import type { AgentView, MeView, RunView, WorkspaceSummaryView } from '@lazyboy/contracts';
import type { RunsState } from './runs-store';

/** What the signed-in app shell knows and every page inside it uses. */
export interface ShellValue {
  me: MeView;
  workspace: WorkspaceSummaryView;
  /** The workspace's agents, oldest first; null while loading. */
  agents: AgentView[] | null;
  /** Queued and active runs of the workspace, kept live by realtime events. */
  runs: RunsState;
  /** A run as an HTTP answer gave it: it never overrides a newer state the socket already delivered. */
  applyRunAnswer(run: RunView): void;
  putAgent(agent: AgentView): void;
  dropAgent(agentId: string): void;
  /** Switches workspace; goes to the home page unless `keepPage` (a link into the other workspace). */
  selectWorkspace(workspaceId: string, options?: { keepPage?: boolean }): void;
  openDrawer(): void;
  /** Reads the person and their workspaces again (a rename, their own role changed). */
  refreshMe(): void;
  /** Reads the agents again (their model readiness follows the workspace's model settings). */
  reloadAgents(): void;
}

export const ShellContext = createContext<ShellValue | null>(null);

export function useShell(): ShellValue {
  const value = useContext(ShellContext);
  if (!value) throw new Error('useShell outside the app shell');
  return value;
}
