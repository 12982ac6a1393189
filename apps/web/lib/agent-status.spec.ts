import { describe, expect, it } from '@jest/globals';
import type { RunStatus } from '@lazyboy/contracts';
import { agentStatus, pickStatusRun } from './agent-status.js';

const run = (status: RunStatus, busyStep: string | null = null, createdAt = '2026-01-01T00:00:00.000Z') => ({
  status,
  busyStep,
  createdAt,
});

describe('agentStatus', () => {
  it('is idle without a run or after the run ended', () => {
    expect(agentStatus(null)).toEqual({ kind: 'idle' });
    expect(agentStatus(undefined)).toEqual({ kind: 'idle' });
    for (const status of ['completed', 'blocked', 'failed', 'cancelled'] as const) {
      expect(agentStatus(run(status, 'thinking'))).toEqual({ kind: 'idle' });
    }
  });

  it('is queued while the run waits for the agent', () => {
    expect(agentStatus(run('queued'))).toEqual({ kind: 'queued' });
  });

  it('thinks while running with the thinking step, and while leased before any step', () => {
    expect(agentStatus(run('running', 'thinking'))).toEqual({ kind: 'thinking' });
    expect(agentStatus(run('leased'))).toEqual({ kind: 'thinking' });
    expect(agentStatus(run('running', '  '))).toEqual({ kind: 'thinking' });
  });

  it('tells booting and waking the computer apart from actions', () => {
    expect(agentStatus(run('running', 'booting the computer'))).toEqual({ kind: 'booting' });
    expect(agentStatus(run('running', 'waking the computer'))).toEqual({ kind: 'waking' });
  });

  it('acts with the described tool call as its action', () => {
    expect(agentStatus(run('running', 'browser click 3'))).toEqual({ kind: 'acting', action: 'browser click 3' });
    expect(agentStatus(run('leased', 'shell: ls -la'))).toEqual({ kind: 'acting', action: 'shell: ls -la' });
  });

  it('waits for the person on a question or a takeover', () => {
    expect(agentStatus(run('waiting_input', 'thinking'))).toEqual({ kind: 'waiting', on: 'input' });
    expect(agentStatus(run('waiting_takeover'))).toEqual({ kind: 'waiting', on: 'takeover' });
  });
});

describe('pickStatusRun', () => {
  it('prefers the run holding the agent over the ones queued behind it', () => {
    const queued = run('queued', null, '2026-01-01T00:00:00.000Z');
    const running = run('running', 'thinking', '2026-01-01T00:00:05.000Z');
    expect(pickStatusRun([queued, running])).toBe(running);
    const waiting = run('waiting_input', null, '2026-01-01T00:00:09.000Z');
    expect(pickStatusRun([running, waiting, queued])).toBe(waiting);
  });

  it('takes the oldest queued run and ignores runs that are over', () => {
    const older = run('queued', null, '2026-01-01T00:00:00.000Z');
    const newer = run('queued', null, '2026-01-01T00:01:00.000Z');
    expect(pickStatusRun([newer, run('completed'), older])).toBe(older);
    expect(pickStatusRun([run('failed'), run('cancelled')])).toBeNull();
    expect(pickStatusRun([])).toBeNull();
  });
});
