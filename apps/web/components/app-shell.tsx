'use client';

import { useCallback, useEffect, useMemo, useReducer, useRef, useState, type ReactNode } from 'react';
import { usePathname, useRouter } from 'next/navigation';
import type { AgentView, RunView, WorkspaceSummaryView } from '@lazyboy/contracts';
import { isAbort } from '../lib/api';
import { agents as agentsApi, runs as runsApi } from '../lib/endpoints';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';
import { useRealtimeEvents, useRealtimeRoom } from '../lib/realtime';
import { EMPTY_RUNS, applyRunSnapshot, applyRunUpdate, type RunSource, type RunsState } from '../lib/runs-store';
import { ShellContext, type ShellValue } from '../lib/shell-context';
import { signOut } from '../lib/sign-out';
import { useSignedIn } from '../lib/use-me';
import { rememberWorkspace, rememberedWorkspace } from '../lib/workspace-choice';
import { ErrorBanner } from './error-banner';
import { Sidebar } from './sidebar';

type RunsAction = { type: 'update'; run: RunView; from: RunSource } | { type: 'snapshot'; runs: RunView[]; requestedAt: number };

function runsReducer(state: RunsState, action: RunsAction): RunsState {
  switch (action.type) {
    case 'update':
      return applyRunUpdate(state, action.run, { from: action.from });
    case 'snapshot':
      return applyRunSnapshot(state, action.runs, action.requestedAt);
  }
}

/** The signed-in app: sidebar (drawer on phones) beside the page, and the workspace state both share. */
export function AppShell({ children }: { children: ReactNode }) {
  const t = useT();
  const { me, error: meError, retry } = useSignedIn();
  const [workspace, setWorkspace] = useState<WorkspaceSummaryView | null>(null);

  useEffect(() => {
    if (me) setWorkspace((current) => me.workspaces.find((w) => w.id === current?.id) ?? rememberedWorkspace(me.workspaces));
  }, [me]);

  if (meError) {
    return (
      <div className="splash">
        <ErrorBanner message={errorText(meError, t)} onRetry={retry} />
      </div>
    );
  }
  if (!me) {
    return (
      <div className="splash" data-testid="app-loading">
        {t.loading}
      </div>
    );
  }
  if (me.workspaces.length === 0) {
    return (
      <div className="splash" data-testid="no-workspace">
        <p>{t.noWorkspace}</p>
        <button type="button" className="button" data-testid="sign-out" onClick={() => void signOut()}>
          {t.signOut}
        </button>
      </div>
    );
  }
  if (!workspace) return <div className="splash">{t.loading}</div>;
  return (
    <WorkspaceShell
      key={workspace.id}
      me={me}
      workspace={workspace}
      onRefreshMe={retry}
      onSelectWorkspace={(id) => {
        const next = me.workspaces.find((w) => w.id === id);
        if (!next) return;
        rememberWorkspace(next.id);
        setWorkspace(next);
      }}
    >
      {children}
    </WorkspaceShell>
  );
}

interface WorkspaceShellProps {
  me: ShellValue['me'];
  workspace: WorkspaceSummaryView;
  onSelectWorkspace(workspaceId: string): void;
  onRefreshMe(): void;
  children: ReactNode;
}

/** Everything of one workspace; remounted (state dropped) when the person switches workspace. */
function WorkspaceShell({ me, workspace, onSelectWorkspace, onRefreshMe, children }: WorkspaceShellProps) {
  const t = useT();
  const router = useRouter();
  const pathname = usePathname();
  const [agents, setAgents] = useState<AgentView[] | null>(null);
  const [agentsError, setAgentsError] = useState<unknown>(null);
  const [runs, dispatch] = useReducer(runsReducer, EMPTY_RUNS);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const runsVersion = useRef(0);
  const loadedOnce = useRef(false);

  useEffect(() => {
    runsVersion.current = runs.version;
  }, [runs.version]);

  const load = useCallback(
    async (signal?: AbortSignal) => {
      const requestedAt = runsVersion.current;
      try {
        const list = await agentsApi.list(workspace.id, signal);
        setAgents(list);
        setAgentsError(null);
      } catch (error) {
        if (!isAbort(error)) setAgentsError(error);
      }
      try {
        const active = await runsApi.activeOfWorkspace(workspace.id, signal);
        dispatch({ type: 'snapshot', runs: active.items, requestedAt });
      } catch (error) {
        // Without the snapshot the statuses still fill in from events; nothing to stop the page for.
        if (!isAbort(error)) console.warn('active runs unavailable', error);
      }
      loadedOnce.current = true;
    },
    [workspace.id],
  );

  useEffect(() => {
    const abort = new AbortController();
    void load(abort.signal);
    return () => abort.abort();
  }, [load]);

  useRealtimeRoom({ kind: 'workspace', id: workspace.id }, (initial) => {
    if (!initial || loadedOnce.current) void load();
  });
  useRealtimeEvents((event) => {
    if (event.type === 'run.updated' && event.run.workspaceId === workspace.id)
      dispatch({ type: 'update', run: event.run, from: 'event' });
  });

  // The drawer is a way to navigate: once the page changed, it has done its job.
  useEffect(() => setDrawerOpen(false), [pathname]);

  const value = useMemo<ShellValue>(
    () => ({
      me,
      workspace,
      agents,
      runs,
      applyRunAnswer: (run) => dispatch({ type: 'update', run, from: 'answer' }),
      putAgent: (agent) =>
        setAgents((list) => {
          const current = list ?? [];
          return current.some((b) => b.id === agent.id)
            ? current.map((b) => (b.id === agent.id ? agent : b))
            : [...current, agent];
        }),
      dropAgent: (agentId) => setAgents((list) => list?.filter((b) => b.id !== agentId) ?? list),
      selectWorkspace: (workspaceId, options) => {
        if (workspaceId === workspace.id) return;
        onSelectWorkspace(workspaceId);
        if (!options?.keepPage) router.push('/');
      },
      openDrawer: () => setDrawerOpen(true),
      refreshMe: onRefreshMe,
      reloadAgents: () => void load(),
    }),
    [me, workspace, agents, runs, onSelectWorkspace, onRefreshMe, router, load],
  );

  return (
    <ShellContext.Provider value={value}>
      <div className="shell" data-drawer-open={drawerOpen ? 'true' : undefined}>
        <Sidebar onClose={() => setDrawerOpen(false)} />
        {drawerOpen && <div className="drawer-backdrop" aria-hidden="true" onClick={() => setDrawerOpen(false)} />}
        <main className="shell-main">
          {agentsError !== null && <ErrorBanner message={errorText(agentsError, t)} onRetry={() => void load()} />}
          {children}
        </main>
      </div>
    </ShellContext.Provider>
  );
}
