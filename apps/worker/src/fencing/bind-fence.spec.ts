import { describe, expect, it } from '@jest/globals';
import { WorkerHttpError } from '../http/errors.js';
import { BindFence } from './bind-fence.js';

function refusal(run: () => unknown): WorkerHttpError {
  try {
    run();
  } catch (error) {
    if (error instanceof WorkerHttpError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('BindFence (the computer binding, on the worker)', () => {
  it('admits anything before the first binding, then only the newest fence or a higher one', () => {
    const fence = new BindFence();
    fence.admit(undefined);
    fence.admit('7');
    expect(fence.current).toBe(7);
    expect(fence.bind(7)).toBe(7); // a repeat is harmless
    expect(refusal(() => fence.admit('6'))).toMatchObject({ code: 'STALE_BINDER', status: 409 });
    expect(refusal(() => fence.admit(undefined))).toMatchObject({ code: 'STALE_BINDER' });
    expect(refusal(() => fence.bind(3))).toMatchObject({ code: 'STALE_BINDER', details: { bindFence: 3, newestBindFence: 7 } });
    fence.admit('9'); // its binder told the worker first, but that answer was lost
    expect(fence.current).toBe(9);
    expect(refusal(() => fence.admit('8'))).toMatchObject({ code: 'STALE_BINDER' });
  });

  it('refuses a header that is not a whole number, changing nothing', () => {
    const fence = new BindFence();
    fence.bind(2);
    for (const bad of ['', '-1', '1.5', '2e3', ' 3', '9'.repeat(16), 'abc']) {
      expect(refusal(() => fence.admit(bad))).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    }
    expect(fence.current).toBe(2);
  });
});
