import { isFinalRunStatus, type RunView } from '@lazyboy/contracts';

// The workspace's runs that are not over yet, kept from one snapshot (GET …/runs/active) plus the
// run.updated events that follow. Pure functions: the shell holds the state in a reducer.

export interface RunsState {
  /** Queued and active runs by id; a run leaves as soon as it is over. */
  readonly byId: ReadonlyMap<string, RunView>;
  /** Runs seen over: an older snapshot or a late event must not bring them back. */
  readonly ended: ReadonlySet<string>;
  /** Bumped by every applied update; a snapshot remembers the version it was requested at. */
  readonly version: number;
  /** The version at which each run was last changed by an update. */
  readonly touched: ReadonlyMap<string, number>;
}

export const EMPTY_RUNS: RunsState = { byId: new Map(), ended: new Set(), version: 0, touched: new Map() };

/**
 * Where a single copy of a run comes from. An event is the newest word on it. An answer (to a POST, a
 * cancel) was written when the request was handled, and the socket may have said something later before it
 * arrived: RunView has no version to tell, so an answer only adds a run not known yet, or ends one, a final
 * status being the last there is.
 */
export type RunSource = 'event' | 'answer';

export function applyRunUpdate(state: RunsState, run: RunView, { from }: { from: RunSource }): RunsState {
  if (state.ended.has(run.id)) return state;
  if (from === 'answer' && state.byId.has(run.id) && !isFinalRunStatus(run.status)) return state;
  const version = state.version + 1;
  const byId = new Map(state.byId);
  const touched = new Map(state.touched).set(run.id, version);
  if (isFinalRunStatus(run.status)) {
    byId.delete(run.id);
    return { byId, ended: new Set(state.ended).add(run.id), version, touched };
  }
  byId.set(run.id, run);
  return { ...state, byId, version, touched };
}

/**
 * Replaces the runs by a snapshot requested at `requestedAt` (the state's version then). Runs an event
 * changed since are newer than the snapshot's copy, so they keep their event version, whether or not the
 * snapshot lists them.
 */
export function applyRunSnapshot(state: RunsState, snapshot: readonly RunView[], requestedAt: number): RunsState {
  const newer = (runId: string) => (state.touched.get(runId) ?? -1) > requestedAt;
  const byId = new Map<string, RunView>();
  for (const run of snapshot) {
    if (state.ended.has(run.id) || isFinalRunStatus(run.status)) continue;
    const current = state.byId.get(run.id);
    byId.set(run.id, newer(run.id) && current ? current : run);
  }
  for (const [runId, run] of state.byId) if (!byId.has(runId) && newer(runId)) byId.set(runId, run);
  return { ...state, byId };
}

export function runsOfAgent(state: RunsState, agentId: string): RunView[] {
  return [...state.byId.values()].filter((run) => run.agentId === agentId);
}

export function runsOfChat(state: RunsState, chatId: string): RunView[] {
  return [...state.byId.values()].filter((run) => run.chatId === chatId);
}
