import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { StaticWorkerEntry } from '@lazyboy/contracts';

/** One pool-mode worker of a static pool: an address an entry of LAZYBOY_STATIC_WORKERS resolved to. */
export interface StaticWorker {
  /** The IP address (IPv6 without brackets). */
  address: string;
  port: number;
  /** The entry it came from (`worker:3102`): what a person scales or edits to change the pool. */
  entry: StaticWorkerEntry;
}

/** What resolving the configured entries found: the workers, and the entries that resolved to nothing. */
export interface ResolvedWorkers {
  workers: StaticWorker[];
  unresolved: Array<{ entry: StaticWorkerEntry; reason: string }>;
}

/** Every address a name has (`dns.lookup`, all of them: the resolver the rest of the host uses). */
export type LookupAll = (host: string) => Promise<string[]>;

export const lookupAll: LookupAll = async (host) => (await lookup(host, { all: true })).map((found) => found.address);

/**
 * The workers behind the configured entries, asked anew at every boot: a compose service's name resolves to
 * every replica it runs now (`docker compose up --scale worker=N`), so scaling needs no API restart. An
 * address two entries share counts once; an entry that resolves to nothing (a service scaled to 0, a typo)
 * is reported, not fatal.
 */
export async function resolveStaticWorkers(
  entries: StaticWorkerEntry[],
  lookupHost: LookupAll = lookupAll,
): Promise<ResolvedWorkers> {
  const workers: StaticWorker[] = [];
  const unresolved: ResolvedWorkers['unresolved'] = [];
  const seen = new Set<string>();
  const resolved = await Promise.all(
    entries.map(async (entry) => {
      if (isIP(entry.host)) return { entry, addresses: [entry.host] };
      try {
        return { entry, addresses: await lookupHost(entry.host) };
      } catch (error) {
        return { entry, addresses: [], reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
      }
    }),
  );
  for (const { entry, addresses, reason } of resolved) {
    if (addresses.length === 0) unresolved.push({ entry, reason: reason ?? 'no address' });
    for (const address of addresses) {
      const worker = { address, port: entry.port, entry };
      if (seen.has(hostPort(worker))) continue;
      seen.add(hostPort(worker));
      workers.push(worker);
    }
  }
  return { workers, unresolved };
}

/** `10.0.0.5:3102`, `[fd00::5]:3102`: the worker's address as a URL and the driver's owner strings write it. */
export function hostPort(worker: Pick<StaticWorker, 'address' | 'port'>): string {
  return isIP(worker.address) === 6 ? `[${worker.address}]:${worker.port}` : `${worker.address}:${worker.port}`;
}

/** `worker:3102`, `[fd00::5]:3102`: an entry as LAZYBOY_STATIC_WORKERS spells it. */
export function entryText(entry: StaticWorkerEntry): string {
  return hostPort({ address: entry.host, port: entry.port });
}

export function baseUrlOf(worker: Pick<StaticWorker, 'address' | 'port'>): string {
  return `http://${hostPort(worker)}`;
}
