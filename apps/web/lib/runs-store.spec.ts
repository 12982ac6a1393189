import { describe, expect, it } from '@jest/globals';
import type { RunStatus, RunView } from '@lazyboy/contracts';
import { EMPTY_RUNS, applyRunSnapshot, applyRunUpdate, runsOfAgent, runsOfChat } from './runs-store.js';

function run(id: string, status: RunStatus, extra: Partial<RunView> = {}): RunView {
  return {
    id,
    workspaceId: 'w',
    agentId: 'b1',
    chatId: 's1',
    kind: 'general',
    status,
    busyStep: null,
    roundsUsed: 0,
    plan: [],
    question: null,
    resultText: null,
    errorCode: null,
    errorMessage: null,
    cancelRequested: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    startedAt: null,
    finishedAt: null,
    ...extra,
  };
}

const EVENT = { from: 'event' } as const;
const ANSWER = { from: 'answer' } as const;

describe('runs store', () => {
  it('keeps runs until they are over, and never brings an ended one back', () => {
    let state = applyRunUpdate(EMPTY_RUNS, run('r1', 'queued'), EVENT);
    state = applyRunUpdate(state, run('r1', 'running', { busyStep: { kind: 'thinking' } }), EVENT);
    expect(state.byId.get('r1')?.status).toBe('running');
    state = applyRunUpdate(state, run('r1', 'completed'), EVENT);
    expect(state.byId.has('r1')).toBe(false);
    state = applyRunUpdate(state, run('r1', 'running'), EVENT);
    expect(state.byId.has('r1')).toBe(false);
    state = applyRunSnapshot(state, [run('r1', 'running')], 0);
    expect(state.byId.has('r1')).toBe(false);
  });

  it('lets events that arrived while the snapshot was on its way win over it', () => {
    const requestedAt = EMPTY_RUNS.version;
    let state = applyRunUpdate(EMPTY_RUNS, run('r1', 'running', { busyStep: { kind: 'browser_click', target: '2' } }), EVENT);
    state = applyRunUpdate(state, run('r2', 'queued'), EVENT);
    state = applyRunSnapshot(state, [run('r1', 'queued'), run('r3', 'waiting_input')], requestedAt);
    expect(state.byId.get('r1')?.busyStep).toEqual({ kind: 'browser_click', target: '2' });
    expect(state.byId.has('r2')).toBe(true);
    expect(state.byId.get('r3')?.status).toBe('waiting_input');
  });

  it('never lets an HTTP answer take a run back to an earlier state than the socket gave', () => {
    let state = applyRunUpdate(EMPTY_RUNS, run('r1', 'running', { busyStep: { kind: 'thinking' } }), EVENT);
    state = applyRunUpdate(state, run('r1', 'queued'), ANSWER);
    expect(state.byId.get('r1')?.status).toBe('running');
    expect(state.byId.get('r1')?.busyStep).toEqual({ kind: 'thinking' });
    // The socket's next word still counts.
    state = applyRunUpdate(state, run('r1', 'waiting_input'), EVENT);
    expect(state.byId.get('r1')?.status).toBe('waiting_input');
  });

  it('lets an HTTP answer add a run not known yet, and end a known one', () => {
    let state = applyRunUpdate(EMPTY_RUNS, run('r1', 'queued'), ANSWER);
    expect(state.byId.get('r1')?.status).toBe('queued');
    state = applyRunUpdate(state, run('r1', 'cancelled'), ANSWER);
    expect(state.byId.has('r1')).toBe(false);
    state = applyRunUpdate(state, run('r1', 'running'), EVENT);
    expect(state.byId.has('r1')).toBe(false);
  });

  it('ignores an HTTP answer about a run the socket already ended', () => {
    let state = applyRunUpdate(EMPTY_RUNS, run('r1', 'completed'), EVENT);
    state = applyRunUpdate(state, run('r1', 'queued'), ANSWER);
    expect(state.byId.has('r1')).toBe(false);
  });

  it('drops runs a newer snapshot no longer lists', () => {
    let state = applyRunUpdate(EMPTY_RUNS, run('r1', 'running'), EVENT);
    state = applyRunSnapshot(state, [], state.version);
    expect(state.byId.size).toBe(0);
  });

  it('selects the runs of an agent and of a chat', () => {
    let state = applyRunUpdate(EMPTY_RUNS, run('r1', 'running'), EVENT);
    state = applyRunUpdate(state, run('r2', 'queued', { agentId: 'b2', chatId: 's2' }), EVENT);
    expect(runsOfAgent(state, 'b2').map((r) => r.id)).toEqual(['r2']);
    expect(runsOfChat(state, 's1').map((r) => r.id)).toEqual(['r1']);
  });
});
