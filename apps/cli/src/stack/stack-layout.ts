import path from 'node:path';
import type { StackEnv } from '@lazyboy/contracts';
import { placeState } from './state-placement.js';

/**
 * Where the local stack keeps its state: under the data directory, except what the servers' and
 * computers' own users must reach when the data directory is private (see state-placement.ts).
 */
export interface StackLayout {
  dataDir: string;
  /** Postgres, Redis and the computers' homes: the data directory itself, or the place they moved to. */
  stateDir: string;
  /** Whether `stateDir` is outside the data directory. */
  stateRelocated: boolean;
  postgresDir: string;
  redisDir: string;
  logsDir: string;
  homesDir: string;
  secretsFile: string;
  stateFile: string;
  /** Ports of the last start, reused when free so that URLs stay stable. */
  portsFile: string;
}

export function stackLayout(config: Pick<StackEnv, 'LAZYBOY_DATA_DIR' | 'LAZYBOY_STATE_DIR'>): StackLayout {
  const root = path.resolve(config.LAZYBOY_DATA_DIR);
  const placement = placeState(root, { asRoot: process.getuid?.() === 0, stateRoot: config.LAZYBOY_STATE_DIR });
  return {
    dataDir: root,
    stateDir: placement.stateDir,
    stateRelocated: placement.relocated,
    postgresDir: path.join(placement.stateDir, 'postgres'),
    redisDir: path.join(placement.stateDir, 'redis'),
    logsDir: path.join(root, 'logs'),
    homesDir: path.join(placement.stateDir, 'homes'),
    secretsFile: path.join(root, 'secrets.json'),
    stateFile: path.join(root, 'stack.json'),
    portsFile: path.join(root, 'ports.json'),
  };
}

export function logFile(layout: StackLayout, component: string): string {
  return path.join(layout.logsDir, `${component}.log`);
}
