import { describe, expect, it } from '@jest/globals';
import { WorkerHttpError } from '../http/errors.js';
import { ScreenFences } from './screen-fences.js';

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return error instanceof WorkerHttpError ? error.code : 'other';
  }
  return undefined;
}

describe('ScreenFences', () => {
  it('keeps the newest execution fence per slot and refuses older ones', () => {
    const fences = new ScreenFences();
    expect(fences.admitExecution(0, 4)).toBe(true);
    expect(fences.admitExecution(0, 4)).toBe(false);
    expect(codeOf(() => fences.admitExecution(0, 3))).toBe('STALE_FENCE');
    expect(fences.admitExecution(1, 0)).toBe(true);
    expect(fences.admitExecution(0, 7)).toBe(true);
    expect(codeOf(() => fences.assertCurrentExecution(0, 4))).toBe('STALE_FENCE');
    expect(codeOf(() => fences.assertCurrentExecution(0, 7))).toBeUndefined();
    expect([fences.executionFence(0), fences.executionFence(1), fences.executionFence(2)]).toEqual([7, 0, undefined]);
  });

  it('lets a newer control fence change the holder and blocks the agent while a person holds it', () => {
    const fences = new ScreenFences();
    expect(fences.control(0)).toEqual({ holder: 'agent', fence: 0 });
    expect(codeOf(() => fences.assertAgentMayAct(0, 'click'))).toBeUndefined();
    expect(fences.setControl(0, 'user', 5)).toEqual({ holder: 'user', fence: 5 });
    expect(fences.setControl(0, 'user', 5)).toEqual({ holder: 'user', fence: 5 });
    expect(codeOf(() => fences.assertAgentMayAct(0, 'click'))).toBe('CONTROL_HELD_BY_USER');
    expect(codeOf(() => fences.setControl(0, 'agent', 5))).toBe('STALE_FENCE');
    expect(codeOf(() => fences.setControl(0, 'agent', 4))).toBe('STALE_FENCE');
    expect(fences.setControl(0, 'agent', 6)).toEqual({ holder: 'agent', fence: 6 });
    expect(codeOf(() => fences.assertAgentMayAct(0, 'click'))).toBeUndefined();
    expect(fences.control(1)).toEqual({ holder: 'agent', fence: 0 });
  });
});
