import { Injectable } from '@nestjs/common';
import type { ComponentCheck, ReadinessComponent, ReadinessReport } from '@lazyboy/contracts';
import { RedisService } from '../redis/redis.service.js';
import { HealthRepository } from './health.repository.js';

const CHECK_TIMEOUT_MS = 2_000;

/** Checks that every dependency the API needs answers right now. */
@Injectable()
export class ReadinessService {
  constructor(
    private readonly database: HealthRepository,
    private readonly redis: RedisService,
  ) {}

  async check(): Promise<ReadinessReport> {
    const [postgres, redis] = await Promise.all([timed(() => this.database.ping()), timed(() => this.redis.ping())]);
    const checks: Record<ReadinessComponent, ComponentCheck> = { postgres, redis };
    const failing = (Object.keys(checks) as ReadinessComponent[]).filter((name) => !checks[name].ok);
    return { status: failing.length === 0 ? 'ready' : 'unavailable', failing, checks };
  }
}

async function timed(probe: () => Promise<void>): Promise<ComponentCheck> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}
