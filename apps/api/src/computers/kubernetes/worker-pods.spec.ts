import { describe, expect, it } from '@jest/globals';
import type { V1ContainerState, V1Pod } from '@kubernetes/client-node';
import { containersEnded } from './worker-pods.js';

// When a deleted worker pod counts as done with its home: its containers have ended, or could never start.

const pod = (state: V1ContainerState | undefined, { deleted = true, phase = 'Running' } = {}): V1Pod => ({
  metadata: { name: 'p', ...(deleted ? { deletionTimestamp: new Date() } : {}) },
  status: {
    phase,
    containerStatuses: state ? [{ name: 'worker', image: 'i', imageID: '', ready: false, restartCount: 0, state }] : [],
  },
});

describe('containersEnded', () => {
  it('holds once every container has terminated, or the pod has ended', () => {
    expect(containersEnded(pod({ terminated: { exitCode: 0 } }))).toBe(true);
    expect(containersEnded(pod(undefined, { phase: 'Succeeded' }))).toBe(true);
    expect(containersEnded(pod(undefined, { phase: 'Failed', deleted: false }))).toBe(true);
  });

  it('does not hold while a container runs or may still start', () => {
    expect(containersEnded(pod({ running: {} }))).toBe(false);
    expect(containersEnded(pod({ waiting: { reason: 'ContainerCreating' } }))).toBe(false);
    expect(containersEnded(pod(undefined))).toBe(false);
  });

  it('counts a container that cannot start as ended only once the pod is being deleted', () => {
    expect(containersEnded(pod({ waiting: { reason: 'ErrImageNeverPull' } }))).toBe(true);
    expect(containersEnded(pod({ waiting: { reason: 'ErrImageNeverPull' } }, { deleted: false }))).toBe(false);
    expect(containersEnded(pod({ waiting: { reason: 'CrashLoopBackOff' } }))).toBe(true);
  });
});
