// Benchmark of the local stack: time from `lazyboy up` to "LazyBoy is up" on a fresh data directory
// (cold: initdb, migrations) and on an existing one (warm), and the latency of /readyz and /healthz.
// Run with `npm run bench:stack`; it needs a build (`./lazyboy setup`).
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '@lazyboy/localstack';
import { median, percentile } from './stats.js';

const CLI = path.join(repoRoot, 'apps/cli/dist/main.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);

interface Started {
  ms: number;
  apiPort: number;
  stop(): Promise<void>;
}

async function startStack(dataDir: string): Promise<Started> {
  const env = {
    ...process.env,
    LAZYBOY_DATA_DIR: dataDir,
    LAZYBOY_WEB_PORT: '0',
    LAZYBOY_API_PORT: '0',
    LAZYBOY_WORKER_PORT: '0',
  };
  const started = performance.now();
  const up = spawn(process.execPath, [CLI, 'up'], { env, detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => up.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    up.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('LazyBoy is up')) resolve();
    });
    up.once('exit', () => reject(new Error(`up exited before it was ready:\n${output}`)));
  });
  const ms = performance.now() - started;
  const state = JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8')) as { ports: { api: number } };
  return {
    ms,
    apiPort: state.ports.api,
    stop: async () => {
      process.kill(-up.pid!, 'SIGINT');
      await exited;
    },
  };
}

async function latencies(url: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    out.push(performance.now() - t);
  }
  return out;
}

const cold: number[] = [];
const warm: number[] = [];
let readyz: number[] = [];
let healthz: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-bench-'));
  chmodSync(dataDir, 0o755);
  try {
    const first = await startStack(dataDir);
    cold.push(first.ms);
    await first.stop();
    const second = await startStack(dataDir);
    warm.push(second.ms);
    if (round === 0) {
      readyz = await latencies(`http://127.0.0.1:${second.apiPort}/readyz`);
      healthz = await latencies(`http://127.0.0.1:${second.apiPort}/healthz`);
    }
    await second.stop();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
console.log(`lazyboy up, fresh data dir (initdb + migrations), median of ${ROUNDS}: ${fmt(median(cold))}`);
console.log(`lazyboy up, existing data dir, median of ${ROUNDS}:                    ${fmt(median(warm))}`);
console.log(
  `GET /readyz over ${REQUESTS} requests: median ${median(readyz).toFixed(2)} ms, p95 ${percentile(readyz, 95).toFixed(2)} ms`,
);
console.log(
  `GET /healthz over ${REQUESTS} requests: median ${median(healthz).toFixed(2)} ms, p95 ${percentile(healthz, 95).toFixed(2)} ms`,
);
