import { workerRoutes } from '@lazyboy/contracts';
import type { WorkerBinding } from '../pool-driver.js';
import { neverDelivered, WorkerCallError, WorkerClient } from '../worker-client.js';

/**
 * What the worker at a binding's address says of that binding, asked with its control token: the token is
 * fresh for every assignment, so a worker that restarted (and serves nobody, or someone else) refuses it.
 * - `serves`: it answers as the computer with the binding's fence.
 * - `superseded`: it serves the computer for a newer binding (another replica took it over).
 * - `releasing`: it is stopping the computer's desktop, then ends.
 * - `gone`: nothing listens there, or the worker there is another one: nothing of this binding runs.
 * - `silent`: no answer in time (a busy host, a network in trouble): nothing can be concluded.
 */
export type Presence =
  | { kind: 'serves' }
  | { kind: 'superseded' }
  | { kind: 'releasing' }
  | { kind: 'gone'; reason: string }
  | { kind: 'silent'; reason: string };

export async function presenceOf(binding: WorkerBinding, timeoutMs: number): Promise<Presence> {
  try {
    const screens = await new WorkerClient(binding.endpoint).call(workerRoutes.listScreens, {}, { timeoutMs });
    if (screens.computerId === binding.computerId) return { kind: 'serves' };
    return { kind: 'gone', reason: `the worker there serves computer ${screens.computerId} now` };
  } catch (error) {
    if (!(error instanceof WorkerCallError)) throw error;
    switch (error.code) {
      case 'STALE_BINDER':
        return { kind: 'superseded' };
      case 'COMPUTER_UNAVAILABLE':
        // A suspended computer answers its screens; only a release refuses them.
        return { kind: 'releasing' };
      case 'UNAUTHENTICATED':
        return { kind: 'gone', reason: 'its worker restarted (the worker there does not hold this computer any more)' };
      case 'UNREACHABLE':
        return neverDelivered(error)
          ? { kind: 'gone', reason: 'its worker process ended (nothing listens at its address)' }
          : { kind: 'silent', reason: error.message };
      default:
        return { kind: 'silent', reason: `${error.code}: ${error.message}` };
    }
  }
}
