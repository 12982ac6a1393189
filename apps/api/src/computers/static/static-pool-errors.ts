import type { StaticWorkerEntry } from '@lazyboy/contracts';
import { isIP } from 'node:net';
import { entryText, type ResolvedWorkers } from './static-workers.js';

// Why a static pool could not give a computer a worker. One line each: the computers service shows the
// first line of a boot's failure to the person (the computer's error, the run's tool result).

/** Every worker of the pool serves a computer (or is restarting): the pool is full until one stops. */
export class AllWorkersBusyError extends Error {
  override readonly name = 'AllWorkersBusyError';
  readonly total: number;

  constructor(
    resolved: ResolvedWorkers,
    readonly busy: number,
    readonly silent: number,
  ) {
    const total = resolved.workers.length;
    const state =
      silent === 0
        ? `its ${total} workers each serve one`
        : `${busy} of its ${total} workers serve one, ${silent} do${silent === 1 ? 'es' : ''} not answer (restarting or down)`;
    super(`all ${total} computers of this host are in use (${state}); stop a computer nobody uses, or ${howToAdd(resolved)}`);
    this.total = total;
  }
}

/** No worker answered at all: none resolved, or none is up. Nothing is in use; the pool is not running. */
export class NoWorkerAnswersError extends Error {
  override readonly name = 'NoWorkerAnswersError';
  constructor(resolved: ResolvedWorkers, entries: StaticWorkerEntry[]) {
    const found = resolved.workers.length;
    const unresolved = resolved.unresolved.map(({ entry, reason }) => `${entryText(entry)} resolves to no address (${reason})`);
    const detail = [...(found > 0 ? [`${found} worker${found === 1 ? '' : 's'} found, none answers`] : []), ...unresolved].join(
      '; ',
    );
    super(
      `no worker of this host answers (LAZYBOY_STATIC_WORKERS=${entries.map(entryText).join(',')}: ${detail}); ` +
        'start the worker service (docker compose up -d) and check its logs',
    );
  }
}

/** A worker refused the assignment for a reason every worker would give: the pool is set up wrong. */
export class StaticWorkerRefusedError extends Error {
  override readonly name = 'StaticWorkerRefusedError';
}

/** How a person adds computers: scale the compose service an entry names, or list more workers. */
function howToAdd(resolved: ResolvedWorkers): string {
  const service = resolved.workers.find((worker) => isIP(worker.entry.host) === 0)?.entry;
  if (!service) return 'add workers: list another worker in LAZYBOY_STATIC_WORKERS';
  const replicas = resolved.workers.filter((worker) => worker.entry === service).length;
  return `add workers: scale the worker service (docker compose up -d --scale ${service.host}=${replicas + 1})`;
}
