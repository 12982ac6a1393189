import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { workerRoutes, type AssignRequest, type StaticWorkerEntry } from '@lazyboy/contracts';
import { PoolDriver, type ComputerSpec, type LostWorker, type WorkerBinding } from '../pool-driver.js';
import { neverDelivered, WorkerCallError, WorkerClient, type WorkerEndpoint } from '../worker-client.js';
import { AllWorkersBusyError, NoWorkerAnswersError, StaticWorkerRefusedError } from './static-pool-errors.js';
import {
  baseUrlOf,
  entryText,
  hostPort,
  lookupAll,
  resolveStaticWorkers,
  type LookupAll,
  type ResolvedWorkers,
  type StaticWorker,
} from './static-workers.js';
import { presenceOf } from './worker-presence.js';

export interface StaticPoolDriverOptions {
  /** LAZYBOY_STATIC_WORKERS: where the pool-mode workers listen (a name stands for all its addresses). */
  workers: StaticWorkerEntry[];
  /** The workers' LAZYBOY_POOL_TOKEN: it opens their assign route alone. */
  poolToken: string;
  /** How often the workers this process holds are asked whether they still serve their computer. Default 2 s. */
  pollMs?: number;
  /** How long a stop waits for a released worker to end. Default 30 s. */
  stopTimeoutMs?: number;
  /** How long a boot waits for workers that do not answer when none is free. Default 20 s. */
  restartWaitMs?: number;
  /** Resolves the entries' names (default: the host's resolver, every address). */
  lookup?: LookupAll;
}

/** A worker this process holds, and how many polls in a row it has not answered. */
interface HeldWorker {
  binding: WorkerBinding;
  silentPolls: number;
}

/** A free worker answers its health at once; one that does not is restarting or down. */
const HEALTH_TIMEOUT_MS = 2_000;
/** How long a boot waits for workers that do not answer (restarting after a release) when none is free. */
const RESTART_WAIT_MS = 20_000;
const RESTART_POLL_MS = 250;
const ASSIGN_TIMEOUT_MS = 10_000;
const RELEASE_TIMEOUT_MS = 10_000;
/** Bounded below the poll's interval, so polls never pile up behind a worker that does not answer. */
const POLL_TIMEOUT_MS = 1_500;
/**
 * A worker that is gone is seen at once (its port refuses, or a fresh worker there refuses the token); one
 * that only does not answer may be a busy host: it counts as lost after this many polls in a row (~6 s).
 */
const SILENT_POLLS_LOST = 3;
const OWNER = /^static:(.+)\/([0-9a-f]{16})$/;

/**
 * The static pool (ARCHITECTURE.md "Pool drivers"): a fixed set of warm pool-mode workers on one Docker
 * host (a compose service with N replicas and a restart policy), found by address, that this driver
 * assigns computers to instead of starting anything. A boot asks every worker's health and assigns the
 * first free one (the pool token, a fresh control token, the bind fence, the computer's home key: its home
 * is a directory of the homes volume every worker mounts); a worker someone else assigned first is passed
 * over. Stopping releases the worker: it stops the desktop and ends its process, and the container's
 * restart brings a fresh warm worker up at the same address, so nothing of one computer meets the next.
 *
 * Workers outlive the API process: another replica, or this one restarted, adopts them through the
 * Computer row (the binding's address and control token). There is no watch: the workers this process
 * holds are polled, and one that is gone (or replaced by a fresh one) is reported lost with its fence.
 */
export class StaticPoolDriver extends PoolDriver {
  readonly name = 'static' as const;
  private readonly logger = new Logger('StaticPoolDriver');
  private readonly held = new Map<string, HeldWorker>();
  private readonly lostListeners = new Set<(lost: LostWorker) => void>();
  private readonly lookup: LookupAll;
  private poller: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: StaticPoolDriverOptions) {
    super();
    this.lookup = options.lookup ?? lookupAll;
  }

  /**
   * Assigns the computer the first free worker. When none is free but some do not answer (a released
   * worker's container restarting, ~1 s), it asks again for a while: a computer stopped and started again
   * on a full pool waits for its own worker to come back instead of failing.
   */
  async provision(spec: ComputerSpec, signal?: AbortSignal): Promise<WorkerBinding> {
    const deadline = Date.now() + (this.options.restartWaitMs ?? RESTART_WAIT_MS);
    for (;;) {
      if (this.closed) throw new Error('the API is shutting down');
      signal?.throwIfAborted();
      const round = await this.provisionRound(spec, signal);
      if ('binding' in round) return round.binding;
      const { resolved, busy, silent } = round;
      if (silent > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, RESTART_POLL_MS));
        continue;
      }
      if (busy === 0) throw new NoWorkerAnswersError(resolved, this.options.workers);
      throw new AllWorkersBusyError(resolved, busy, silent);
    }
  }

  async bind(binding: WorkerBinding, bindFence: bigint): Promise<WorkerBinding> {
    const bound = await this.fenceWorker(binding, bindFence);
    const known = this.held.get(binding.computerId);
    if (known && known.binding.owner === binding.owner) known.binding = bound;
    return bound;
  }

  /**
   * Releases the worker (it stops the desktop, then its process ends and its container brings a fresh one
   * up) and resolves once nothing of the computer runs there: the worker answers as the computer until its
   * desktop is gone, so a boot of the same computer on another worker never meets it on the home.
   */
  async stop(binding: WorkerBinding): Promise<void> {
    this.release(binding);
    let endpoint: WorkerEndpoint = binding.endpoint;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await new WorkerClient(endpoint).call(workerRoutes.release, {}, { timeoutMs: RELEASE_TIMEOUT_MS });
        break;
      } catch (error) {
        if (!(error instanceof WorkerCallError)) throw error;
        // Whoever stops a computer means it (the service stops only a binding nobody else holds: a boot
        // that lost its claim, a worker that did not take a takeover's fence). A newer fence than this
        // binding's, which the worker names, must not leave it serving nobody: the pool has no worker to spare.
        const newest = (error.details as { newestBindFence?: unknown } | undefined)?.newestBindFence;
        if (error.code === 'STALE_BINDER' && typeof newest === 'number' && attempt === 1) {
          endpoint = { ...endpoint, bindFence: newest };
          continue;
        }
        if (error.code === 'UNAUTHENTICATED') return; // a fresh worker is there: this one ended already
        if (error.code === 'UNREACHABLE') break; // ended already, or not answering: the wait tells which
        if (error.code === 'NOT_A_POOL_WORKER') {
          throw new StaticWorkerRefusedError(
            `the worker at ${binding.endpoint.baseUrl} is not in pool mode (LAZYBOY_WORKER_MODE=pool): it cannot be released`,
          );
        }
        throw error;
      }
    }
    await this.untilEnded(binding);
  }

  /** The worker at the binding's address answers as that computer and takes the binding's fence. */
  async adopt(binding: WorkerBinding): Promise<boolean> {
    if (this.closed) return false;
    if (this.held.get(binding.computerId)?.binding.owner === binding.owner) return true;
    const owner = OWNER.exec(binding.owner);
    if (!owner || `http://${owner[1]}` !== binding.endpoint.baseUrl) return false;
    if ((await presenceOf(binding, 5_000)).kind !== 'serves') return false;
    this.hold(binding);
    return true;
  }

  release(binding: WorkerBinding): void {
    if (this.held.get(binding.computerId)?.binding.owner === binding.owner) this.held.delete(binding.computerId);
  }

  onLost(listener: (lost: LostWorker) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Stops polling; the workers outlive this process (their bindings' leases lapse, another replica adopts them). */
  async shutdown(): Promise<WorkerBinding[]> {
    this.closed = true;
    clearInterval(this.poller);
    this.poller = undefined;
    await this.polling;
    this.held.clear();
    return [];
  }

  // ----------------------------------------------------------------------------------------- inside

  /** One look at every worker: the binding of the first free one that took the computer, or what was seen. */
  private async provisionRound(
    spec: ComputerSpec,
    signal?: AbortSignal,
  ): Promise<{ binding: WorkerBinding } | { resolved: ResolvedWorkers; busy: number; silent: number }> {
    const resolved = await resolveStaticWorkers(this.options.workers, this.lookup);
    for (const { entry, reason } of resolved.unresolved) {
      this.logger.warn(`LAZYBOY_STATIC_WORKERS: ${entryText(entry)} resolves to no address (${reason})`);
    }
    signal?.throwIfAborted();
    const healths = await Promise.all(
      resolved.workers.map(async (worker) => ({
        worker,
        health: await new WorkerClient({ baseUrl: baseUrlOf(worker), token: '' }).health(HEALTH_TIMEOUT_MS),
      })),
    );
    let busy = 0;
    let silent = 0;
    for (const { worker, health } of healths) {
      if (!health) {
        silent += 1;
        continue;
      }
      if (health.computerId !== null) {
        busy += 1;
        continue;
      }
      const outcome = await this.assign(worker, spec, signal);
      if (typeof outcome === 'object') return { binding: outcome };
      if (outcome === 'taken') busy += 1;
      else silent += 1;
    }
    return { resolved, busy, silent };
  }

  /**
   * Assigns the free worker the computer: its binding, 'taken' when someone else assigned it first, or
   * 'silent' when it did not answer. A refusal every worker would give (the pool token, the homes
   * directory, the screens) is the pool's set-up, and fails the boot at once.
   */
  private async assign(
    worker: StaticWorker,
    spec: ComputerSpec,
    signal?: AbortSignal,
  ): Promise<WorkerBinding | 'taken' | 'silent'> {
    const client = new WorkerClient({ baseUrl: baseUrlOf(worker), token: this.options.poolToken });
    const controlToken = randomBytes(32).toString('base64url');
    const request: AssignRequest = {
      computerId: spec.computerId,
      controlToken,
      bindFence: Number(spec.bindFence),
      screenLimit: spec.screenLimit,
      homeKey: spec.homeKey,
    };
    const binding: WorkerBinding = {
      computerId: spec.computerId,
      endpoint: { baseUrl: baseUrlOf(worker), token: controlToken, bindFence: Number(spec.bindFence) },
      // The assignment's own id: a fresh worker at the same address is another owner (the computers
      // service tells "taken over" from "replaced" by the owner).
      owner: `static:${hostPort(worker)}/${randomBytes(8).toString('hex')}`,
      bindFence: spec.bindFence,
    };
    // The same assignment again is answered again (its answer was lost): once more before the worker is
    // given up, so one that took it is not left serving nobody.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await client.call(workerRoutes.assign, request, { timeoutMs: ASSIGN_TIMEOUT_MS, ...(signal ? { signal } : {}) });
        break;
      } catch (error) {
        if (error instanceof WorkerCallError && error.code === 'ALREADY_ASSIGNED') return 'taken';
        if (error instanceof WorkerCallError && error.code === 'UNREACHABLE' && !neverDelivered(error) && attempt < 2) continue;
        // Whether it took the computer is unknown (aborted, not answering): released if it did.
        if (!(error instanceof WorkerCallError) || error.code === 'UNREACHABLE') {
          void this.releaseQuietly(binding);
          if (!(error instanceof WorkerCallError)) throw error;
          return 'silent';
        }
        throw refusal(worker, error);
      }
    }
    if (this.closed) {
      void this.releaseQuietly(binding);
      throw new Error('the API is shutting down');
    }
    this.hold(binding);
    this.logger.log(`computer ${spec.computerId} is served by the worker at ${hostPort(worker)}`);
    return binding;
  }

  /** Until the worker at the binding's address no longer serves it (its process ended, a fresh one is there). */
  private async untilEnded(binding: WorkerBinding): Promise<void> {
    const timeoutMs = this.options.stopTimeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await presenceOf(binding, HEALTH_TIMEOUT_MS)).kind === 'gone') return;
      if (Date.now() > deadline) {
        throw new Error(
          `the worker at ${binding.endpoint.baseUrl} still served computer ${binding.computerId} ` +
            `${Math.round(timeoutMs / 1000)} s after it was released`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private async releaseQuietly(binding: WorkerBinding): Promise<void> {
    await new WorkerClient(binding.endpoint)
      .call(workerRoutes.release, {}, { timeoutMs: RELEASE_TIMEOUT_MS })
      .catch(() => undefined);
  }

  private hold(binding: WorkerBinding): void {
    this.held.set(binding.computerId, { binding, silentPolls: 0 });
    this.poller ??= setInterval(() => void this.poll(), this.options.pollMs ?? 2_000).unref();
  }

  /** One round over the workers this process holds; a round still going is not overlapped. */
  private poll(): Promise<void> {
    if (this.closed || this.polling || this.held.size === 0) return this.polling ?? Promise.resolve();
    this.polling = Promise.all([...this.held.values()].map((held) => this.check(held)))
      .then(() => undefined)
      .catch((error: unknown) => this.logger.warn(`checking the workers failed: ${(error as Error).message}`))
      .finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async check(held: HeldWorker): Promise<void> {
    const presence = await presenceOf(held.binding, POLL_TIMEOUT_MS);
    // Stopped, released or lost meanwhile: not ours to report any more.
    if (this.closed || this.held.get(held.binding.computerId) !== held) return;
    switch (presence.kind) {
      case 'serves':
      case 'superseded': // another replica took it over: its renewal here lets it go
      case 'releasing': // someone stops it: gone at the next round
        held.silentPolls = 0;
        return;
      case 'gone':
        return this.lost(held, presence.reason);
      case 'silent':
        held.silentPolls += 1;
        if (held.silentPolls < SILENT_POLLS_LOST) return;
        // It may still run, cut off: released if it ever hears, so the pool gets it back.
        void this.releaseQuietly(held.binding);
        return this.lost(held, `its worker has not answered for ${SILENT_POLLS_LOST} checks (${presence.reason})`);
    }
  }

  /** The service hears which binding went away (that fence only), once. */
  private lost(held: HeldWorker, reason: string): void {
    this.held.delete(held.binding.computerId);
    const { computerId, owner, bindFence } = held.binding;
    this.logger.warn(`the worker of computer ${computerId} (${owner}) went away: ${reason}`);
    const lost: LostWorker = { computerId, owner, bindFence, reason };
    for (const listener of this.lostListeners) listener(lost);
  }
}

/** Why the pool cannot serve computers as it is set up, from the worker's refusal (never a token). */
function refusal(worker: StaticWorker, error: WorkerCallError): Error {
  const at = `the worker at ${hostPort(worker)}`;
  switch (error.code) {
    case 'UNAUTHENTICATED':
      return new StaticWorkerRefusedError(`${at} refused the pool token: the API's LAZYBOY_POOL_TOKEN is not the workers'`);
    case 'NO_HOMES_DIR':
      return new StaticWorkerRefusedError(`${at} has no LAZYBOY_HOMES_DIR: set it on the workers to the homes volume's path`);
    case 'SCREEN_LIMIT':
      return new StaticWorkerRefusedError(`${at} runs fewer screens than the API's TEAM_SCREEN_LIMIT (${error.message})`);
    default:
      return new StaticWorkerRefusedError(`${at} refused the computer (${error.code}): ${error.message}`);
  }
}
