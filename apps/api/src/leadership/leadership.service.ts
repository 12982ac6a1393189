import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { RedisService } from '../redis/redis.service.js';
import { LeaderElection } from './leader-election.js';

export interface LeaderTask {
  /** Names the task in logs. */
  name: string;
  intervalMs: number;
  /** Runs only while this replica leads; `signal` aborts when the lead is lost or the app stops. */
  run(signal: AbortSignal): Promise<void>;
}

const LEADER_TTL_MS = 10_000;

/**
 * The replica that runs the once-per-deployment background work (the idle loop, the schedule tick). Every
 * replica contends; the winner runs the registered tasks on their intervals, the others stay idle until
 * it goes away. Replicas elect per database (the key carries a digest of its address), so separate
 * deployments or test databases sharing one Redis do not steal each other's leader.
 */
@Injectable()
export class Leadership implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(Leadership.name);
  readonly election: LeaderElection;
  private readonly tasks = new Map<string, { task: LeaderTask; timer?: NodeJS.Timeout; running?: Promise<void> }>();
  private started = false;

  constructor(redis: RedisService, @Inject(API_CONFIG) config: ApiConfig) {
    this.election = new LeaderElection(redis.client, {
      key: leaderKey('maintenance', config.DATABASE_URL),
      ttlMs: LEADER_TTL_MS,
      owner: `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`,
      log: (line) => this.logger.debug(line),
    });
    this.election.onChange((leading) => {
      if (leading) for (const entry of this.tasks.values()) this.arm(entry.task.name, 0);
      else for (const entry of this.tasks.values()) if (entry.timer) clearTimeout(entry.timer);
    });
  }

  get isLeader(): boolean {
    return this.election.isLeader;
  }

  /** Registers a task that runs every `intervalMs` on the leading replica only. */
  register(task: LeaderTask): void {
    if (this.tasks.has(task.name)) throw new Error(`leader task ${task.name} is registered twice`);
    this.tasks.set(task.name, { task });
    if (this.election.isLeader) this.arm(task.name, 0);
  }

  onApplicationBootstrap(): void {
    this.started = true;
    this.election.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.started = false;
    for (const entry of this.tasks.values()) if (entry.timer) clearTimeout(entry.timer);
    await this.election.stop();
    await Promise.all([...this.tasks.values()].map((entry) => entry.running));
  }

  private arm(name: string, delayMs: number): void {
    const entry = this.tasks.get(name);
    if (!entry || !this.started) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (!this.election.isLeader || entry.running) return;
      const signal = this.election.signal;
      entry.running = entry.task
        .run(signal)
        .catch((error: unknown) =>
          this.logger.error(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
        )
        .finally(() => {
          entry.running = undefined;
          if (this.election.isLeader) this.arm(name, entry.task.intervalMs);
        });
    }, delayMs);
    entry.timer.unref();
  }
}

/** One key per purpose and database: `lazyboy:leader:<name>:<digest of host, port and database>`. */
export function leaderKey(name: string, databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const digest = createHash('sha256').update(`${url.hostname}:${url.port}${url.pathname}`).digest('hex').slice(0, 12);
  return `lazyboy:leader:${name}:${digest}`;
}
