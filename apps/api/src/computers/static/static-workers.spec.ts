import { describe, expect, it } from '@jest/globals';
import { AllWorkersBusyError, NoWorkerAnswersError } from './static-pool-errors.js';
import { baseUrlOf, resolveStaticWorkers, type LookupAll } from './static-workers.js';

// Which workers LAZYBOY_STATIC_WORKERS stands for, and what a person reads when none is free.

/** A resolver that knows a compose project's names (Docker's embedded DNS answers every replica). */
const composeDns: LookupAll = async (host) => {
  const names: Record<string, string[]> = { worker: ['172.18.0.5', '172.18.0.6', '172.18.0.7'], 'worker-b': ['172.18.0.7'] };
  const found = names[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

describe('the static pool’s workers', () => {
  it('are every address a name resolves to, each once, in the order of the entries', async () => {
    const resolved = await resolveStaticWorkers(
      [
        { host: 'worker', port: 3102 },
        { host: 'worker-b', port: 3102 },
        { host: '10.0.0.9', port: 4000 },
        { host: 'fd00::2', port: 3102 },
      ],
      composeDns,
    );
    expect(resolved.workers.map(baseUrlOf)).toEqual([
      'http://172.18.0.5:3102',
      'http://172.18.0.6:3102',
      'http://172.18.0.7:3102',
      'http://10.0.0.9:4000',
      'http://[fd00::2]:3102',
    ]);
    expect(resolved.unresolved).toEqual([]);
  });

  it('reports a name that resolves to nothing (a service scaled to 0, a typo) and keeps the others', async () => {
    const resolved = await resolveStaticWorkers(
      [
        { host: 'wroker', port: 3102 },
        { host: '10.0.0.9', port: 3102 },
      ],
      composeDns,
    );
    expect(resolved.workers.map(baseUrlOf)).toEqual(['http://10.0.0.9:3102']);
    expect(resolved.unresolved).toEqual([{ entry: { host: 'wroker', port: 3102 }, reason: 'ENOTFOUND' }]);
  });

  it('resolves through the host’s own resolver by default', async () => {
    const resolved = await resolveStaticWorkers([{ host: 'localhost', port: 3102 }]);
    expect(resolved.workers.map((w) => w.address)).toContain('127.0.0.1');
  });

  it('tells a person how to add computers: the compose service to scale, or the list to extend', async () => {
    const composed = await resolveStaticWorkers([{ host: 'worker', port: 3102 }], composeDns);
    expect(new AllWorkersBusyError(composed, 3, 0).message).toBe(
      'all 3 computers of this host are in use (its 3 workers each serve one); stop a computer nobody uses, ' +
        'or add workers: scale the worker service (docker compose up -d --scale worker=4)',
    );
    expect(new AllWorkersBusyError(composed, 2, 1).message).toMatch(
      /^all 3 computers of this host are in use \(2 of its 3 workers serve one, 1 does not answer \(restarting or down\)\);/,
    );
    const listed = await resolveStaticWorkers([{ host: '10.0.0.9', port: 3102 }], composeDns);
    expect(new AllWorkersBusyError(listed, 1, 0).message).toMatch(/add workers: list another worker in LAZYBOY_STATIC_WORKERS$/);

    const entries = [{ host: 'wroker', port: 3102 }];
    expect(new NoWorkerAnswersError(await resolveStaticWorkers(entries, composeDns), entries).message).toBe(
      'no worker of this host answers (LAZYBOY_STATIC_WORKERS=wroker:3102: wroker:3102 resolves to no address (ENOTFOUND)); ' +
        'start the worker service (docker compose up -d) and check its logs',
    );
  });
});
