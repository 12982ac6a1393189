import { describe, expect, it } from '@jest/globals';
import type { BusyStep, RunStatus } from '@lazyboy/contracts';
import { agentStatus, pickStatusRun } from './agent-status.js';

const run = (status: RunStatus, busyStep: BusyStep | null = null, createdAt = '2026-01-01T00:00:00.000Z') => ({
  status,
  busyStep,
  createdAt,
});

const THINKING: BusyStep = { kind: 'thinking' };

describe('agentStatus', () => {
  it('is idle without a run or after the run ended', () => {
    expect(agentStatus(null)).toEqual({ kind: 'idle' });
    expect(agentStatus(undefined)).toEqual({ kind: 'idle' });
    for (const status of ['completed', 'blocked', 'failed', 'cancelled'] as const) {
      expect(agentStatus(run(status, THINKING))).toEqual({ kind: 'idle' });
    }
  });

  it('is queued while the run waits for the agent', () => {
    expect(agentStatus(run('queued'))).toEqual({ kind: 'queued' });
  });

  it('thinks while running with the thinking step, and while leased before any step', () => {
    expect(agentStatus(run('running', THINKING))).toEqual({ kind: 'thinking' });
    expect(agentStatus(run('leased'))).toEqual({ kind: 'thinking' });
  });

  it('tells booting and waking the computer apart from actions', () => {
    expect(agentStatus(run('running', { kind: 'booting' }))).toEqual({ kind: 'booting' });
    expect(agentStatus(run('running', { kind: 'waking' }))).toEqual({ kind: 'waking' });
  });

  it('acts with the tool call as its step', () => {
    const click: BusyStep = { kind: 'browser_click', target: '3' };
    expect(agentStatus(run('running', click))).toEqual({ kind: 'acting', step: click });
    expect(agentStatus(run('leased', { kind: 'shell', target: 'ls -la' }))).toEqual({
      kind: 'acting',
      step: { kind: 'shell', target: 'ls -la' },
    });
  });

  it('waits for the person on a question or a takeover', () => {
    expect(agentStatus(run('waiting_input', THINKING))).toEqual({ kind: 'waiting', on: 'input' });
    expect(agentStatus(run('waiting_takeover'))).toEqual({ kind: 'waiting', on: 'takeover' });
  });
});

describe('pickStatusRun', () => {
  it('prefers the run holding the agent over the ones queued behind it', () => {
    const queued = run('queued', null, '2026-01-01T00:00:00.000Z');
    const running = run('running', THINKING, '2026-01-01T00:00:05.000Z');
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
