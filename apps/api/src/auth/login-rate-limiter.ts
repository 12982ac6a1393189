import { Inject, Injectable, Logger } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import type { ApiError } from '../common/api-error.js';
import { RedisService } from '../redis/redis.service.js';
import type { KnownDevice } from './known-device.js';
import {
  addressKey,
  attemptCooldown,
  countInWindows,
  rateLimited as tooMany,
  resetCooldown,
  type CooldownPolicy,
  type WindowCount,
} from './rate-windows.js';
import { sha256Hex } from './secrets.js';

/** Attempts count within this window, from the first attempt on (a fixed window per key). */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
/** One address may fail this many times the per-email allowance, across all emails (password spraying). */
export const PER_IP_FACTOR = 5;

/** What held a sign-in back: its address, its account, or the known device it came from. */
export type LoginLimitScope = 'address' | 'account' | 'known_device';

/** Why a sign-in was refused before its password was looked at. */
export interface LoginRefusal {
  retryAfterSeconds: number;
  scope: LoginLimitScope;
  /** The first refusal of its window: the one worth an audit row (the rest would only flood the log). */
  first: boolean;
}

/** A sign-in that may go on. */
export interface LoginGoAhead {
  /**
   * This attempt made its account (or known device) wait for the first time since its failures were
   * last forgotten: if it fails, that is the lock worth an audit row.
   */
  locks: { scope: Exclude<LoginLimitScope, 'address'>; failures: number; waitSeconds: number } | null;
}

// Forgets the (email, address) count and gives the address back the attempt a successful sign-in used.
// A script, so the address count is only decremented while it exists: a DECR after expiry would
// create a key without a TTL.
const SUCCEEDED_SCRIPT = `
redis.call('DEL', KEYS[1])
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 0
`;

/**
 * Counts sign-in attempts in Redis and refuses them with 429 RATE_LIMITED (Retry-After) before their
 * password is looked at. Each attempt is counted atomically BEFORE its password is checked, so parallel
 * guesses cannot all slip through while scrypt runs.
 *
 * - From a browser without a known-device cookie for the email: per (email, address) and per address in
 *   fixed windows (LAZYBOY_LOGIN_ATTEMPTS), and per account (the normalised email, whether or not an
 *   account has it, so the answers tell nothing about which emails exist) with an escalating cool-down:
 *   after LAZYBOY_ACCOUNT_LOGIN_FAILURES attempts each further one waits twice as long as the last, up to
 *   LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS; attempts during a wait are refused and not counted, so a
 *   stranger cannot make a wait longer than that. Counted from any number of addresses alike.
 * - From a known device of the email: on that device's own cool-down only, so neither a stranger's guesses
 *   at the account nor at the address (the agents' browsers share the machine's) keep its owner out.
 *
 * A successful sign-in forgets the counts it was made on. While Redis is unreachable sign-ins go on
 * unlimited (logged): an outage of the cache should not lock every user out, and scrypt already makes each
 * guess cost tens of milliseconds.
 */
@Injectable()
export class LoginRateLimiter {
  private readonly logger = new Logger(LoginRateLimiter.name);
  private readonly perPair: number;
  private readonly perIp: number;
  private readonly cooldown: CooldownPolicy;

  constructor(
    @Inject(API_CONFIG) config: ApiConfig,
    private readonly redis: RedisService,
  ) {
    this.perPair = config.LAZYBOY_LOGIN_ATTEMPTS;
    this.perIp = config.LAZYBOY_LOGIN_ATTEMPTS * PER_IP_FACTOR;
    this.cooldown = {
      freeAttempts: config.LAZYBOY_ACCOUNT_LOGIN_FAILURES,
      firstWaitSeconds: config.LAZYBOY_ACCOUNT_COOLDOWN_SECONDS,
      maxWaitSeconds: config.LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS,
      memorySeconds: config.LAZYBOY_ACCOUNT_FAILURE_WINDOW_SECONDS,
    };
  }

  /** Counts one attempt: the refusal when a count is over its allowance, else what a failure would start. */
  async attempt(email: string, ip: string, device: KnownDevice | null): Promise<LoginRefusal | LoginGoAhead> {
    try {
      if (device) return await this.onCooldown(deviceCooldown(device), 'known_device');
      const refusal = await this.byAddress(email, ip);
      return refusal ?? (await this.onCooldown(accountCooldown(email), 'account'));
    } catch (error) {
      this.unavailable(error);
      return { locks: null };
    }
  }

  /** Forgets the counts a successful sign-in was made on; the address gets back the attempt it used. */
  async succeeded(email: string, ip: string, device: KnownDevice | null): Promise<void> {
    try {
      if (device) {
        // Only the device's own: the account stays as slow for the stranger still guessing at it.
        await resetCooldown(this.redis.client, deviceCooldown(device));
        return;
      }
      await this.redis.client.eval(SUCCEEDED_SCRIPT, 2, ...addressKeys(email, ip));
      await resetCooldown(this.redis.client, accountCooldown(email));
    } catch (error) {
      this.unavailable(error);
    }
  }

  private async byAddress(email: string, ip: string): Promise<LoginRefusal | null> {
    const [pair, address] = await countInWindows(this.redis.client, addressKeys(email, ip), LOGIN_WINDOW_SECONDS);
    const over = [
      { ...pair, limit: this.perPair },
      { ...address, limit: this.perIp },
    ].filter((entry: WindowCount & { limit: number }) => entry.count > entry.limit);
    if (over.length === 0) return null;
    return {
      retryAfterSeconds: Math.max(1, ...over.map((entry) => (entry.ttl > 0 ? entry.ttl : LOGIN_WINDOW_SECONDS))),
      scope: 'address',
      first: over.some((entry) => entry.count === entry.limit + 1),
    };
  }

  private async onCooldown(name: string, scope: Exclude<LoginLimitScope, 'address'>): Promise<LoginRefusal | LoginGoAhead> {
    const attempt = await attemptCooldown(this.redis.client, name, this.cooldown);
    // Refusals during a wait are not audited: the lock that started it was.
    if (!attempt.allowed) return { retryAfterSeconds: attempt.retryAfterSeconds, scope, first: false };
    const first = attempt.count === this.cooldown.freeAttempts;
    return { locks: first ? { scope, failures: attempt.count, waitSeconds: attempt.waitSeconds } : null };
  }

  private unavailable(error: unknown): void {
    this.logger.warn(`login rate limit not applied, redis unavailable: ${(error as Error).message}`);
  }
}

export function isRefusal(check: LoginRefusal | LoginGoAhead): check is LoginRefusal {
  return 'retryAfterSeconds' in check;
}

const REFUSAL_MESSAGES: Record<LoginLimitScope, string> = {
  address: 'too many failed sign-ins from this address: try again later',
  account: 'too many failed sign-ins to this account: try again later, or from a browser that signed in to it before',
  known_device: 'too many failed sign-ins from this browser: try again later',
};

/** The 429 answer to a refused attempt, with Retry-After. */
export function rateLimited(refusal: LoginRefusal): ApiError {
  return tooMany(REFUSAL_MESSAGES[refusal.scope], refusal.retryAfterSeconds);
}

/** Emails are hashed in the key names: Redis keys show up in monitoring tools and must not list addresses. */
function addressKeys(email: string, ip: string): [pair: string, ip: string] {
  const address = addressKey(ip);
  return [`lazyboy:login-attempts:pair:${sha256Hex(`${email}\n${address}`)}`, `lazyboy:login-attempts:ip:${sha256Hex(address)}`];
}

function accountCooldown(email: string): string {
  return `login-account:${sha256Hex(email)}`;
}

function deviceCooldown(device: KnownDevice): string {
  return `login-device:${sha256Hex(device.id)}`;
}
