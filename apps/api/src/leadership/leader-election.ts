import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

// Extends the key's expiry only while we still own it; an owner whose key expired (and was taken by
// another replica) must not extend the newcomer's.
const EXTEND_IF_OWNER = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

const DELETE_IF_OWNER = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

export interface LeaderElectionOptions {
  /** The Redis key contended for; replicas that must elect one leader use the same key. */
  key: string;
  /** How long leadership lasts without renewal. Default 10 s. */
  ttlMs?: number;
  /** Who we are (logs, the key's value). Default a random id. */
  owner?: string;
  log?: (line: string) => void;
}

/**
 * One leader among replicas over Redis: `SET key owner NX PX ttl` to take the lead, a compare-and-extend
 * script to keep it (every third of the TTL). Leadership counts as lost as soon as a renewal fails or the
 * time since the last successful one reaches the TTL, before another replica can have taken the key: work
 * that must run once stops on `lost`, never overlapping a successor for longer than a clock-skew margin.
 */
export class LeaderElection {
  readonly key: string;
  readonly owner: string;
  readonly ttlMs: number;
  private readonly log: (line: string) => void;
  private leading = false;
  private leaseUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private stopped = true;
  private attempt: Promise<void> = Promise.resolve();
  private controller = new AbortController();
  private readonly listeners = new Set<(leading: boolean) => void>();

  constructor(
    private readonly redis: Redis,
    options: LeaderElectionOptions,
  ) {
    this.key = options.key;
    this.owner = options.owner ?? randomUUID();
    this.ttlMs = options.ttlMs ?? 10_000;
    this.log = options.log ?? (() => undefined);
  }

  /** True while this instance holds the lead (and its lease has not run out locally). */
  get isLeader(): boolean {
    return this.leading && Date.now() < this.leaseUntil;
  }

  /** Aborted when the current leadership ends (a fresh signal each time the lead is won). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Called with true when the lead is won and false when it is lost or given up. */
  onChange(listener: (leading: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops contending and gives the lead up at once (the key is deleted if still ours), so another replica takes over. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.expiry) clearTimeout(this.expiry);
    this.timer = undefined;
    await this.attempt;
    if (this.leading) {
      this.setLeading(false);
      await this.redis.eval(DELETE_IF_OWNER, 1, this.key, this.owner).catch(() => undefined);
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.attempt = this.tick();
    }, delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const started = Date.now();
    try {
      if (this.leading) {
        const extended = await this.redis.eval(EXTEND_IF_OWNER, 1, this.key, this.owner, String(this.ttlMs));
        if (extended === 1) this.extendLease(started);
        else this.setLeading(false);
      } else {
        const won = await this.redis.set(this.key, this.owner, 'PX', this.ttlMs, 'NX');
        if (won === 'OK' && !this.stopped) {
          this.extendLease(started);
          this.setLeading(true);
        }
      }
    } catch (error) {
      // Redis unreachable: we cannot prove we still lead, so we stop leading once the lease runs out.
      this.log(`leader election ${this.key}: ${(error as Error).message}`);
    }
    if (this.leading && Date.now() >= this.leaseUntil) this.setLeading(false);
    this.schedule(this.leading ? Math.max(50, Math.floor(this.ttlMs / 3)) : Math.max(50, Math.floor(this.ttlMs / 2)));
  }

  /** Leadership lasts until `from + ttl` unless renewed; a hung renewal must not extend it. */
  private extendLease(from: number): void {
    this.leaseUntil = from + this.ttlMs;
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = setTimeout(() => {
      if (Date.now() >= this.leaseUntil) this.setLeading(false);
    }, this.leaseUntil - Date.now());
    this.expiry.unref();
  }

  private setLeading(leading: boolean): void {
    if (this.leading === leading) return;
    if (!leading && this.expiry) clearTimeout(this.expiry);
    this.leading = leading;
    if (leading) this.controller = new AbortController();
    else this.controller.abort();
    this.log(`leader election ${this.key}: ${leading ? 'leading' : 'not leading'} (${this.owner})`);
    for (const listener of this.listeners) listener(leading);
  }
}
