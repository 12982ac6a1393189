import type { WorkspaceSummaryView } from '@lazyboy/contracts';

const KEY = 'lazyboy_workspace';

/** The workspace chosen last time on this device, if the person still belongs to it; else their first one. */
export function rememberedWorkspace(workspaces: readonly WorkspaceSummaryView[]): WorkspaceSummaryView | null {
  let stored: string | null = null;
  try {
    stored = window.localStorage.getItem(KEY);
  } catch {
    // Storage disabled (private mode, policy): fall back to the first workspace.
  }
  return workspaces.find((w) => w.id === stored) ?? workspaces[0] ?? null;
}

export function rememberWorkspace(workspaceId: string): void {
  try {
    window.localStorage.setItem(KEY, workspaceId);
  } catch {
    // Not remembered: the next visit starts in the first workspace, nothing worse.
  }
}
