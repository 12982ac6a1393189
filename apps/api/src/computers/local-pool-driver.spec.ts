import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from '@jest/globals';
import { readCmdline } from '@lazyboy/desktop';
import { repoRoot } from '@lazyboy/localstack';
import { testApiConfig } from '../testing/test-config.js';
import { LocalPoolDriver } from './local-pool-driver.js';
import { describePoolDriverConformance } from './pool-driver.conformance.js';
import type { PoolDriver, WorkerBinding } from './pool-driver.js';

// The real local driver: apps/worker/dist/main.js processes on this host (built like computers.spec.ts
// needs it). Its workers start no screen here, so no desktop is booted: the port's contract only.

const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-local-driver-'));
chmodSync(dir, 0o755);
const workerScript = path.join(repoRoot, 'apps/worker/dist/main.js');
let drivers = 0;

const pidOf = (binding: WorkerBinding) => Number(/:(\d+)$/.exec(binding.owner)![1]);
/** Our worker still runs as that pid (a reused pid running something else does not count). */
const running = (binding: WorkerBinding) => readCmdline(pidOf(binding))?.includes(workerScript) ?? false;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describePoolDriverConformance('local', {
  config: testApiConfig({ LAZYBOY_HOMES_DIR: path.join(dir, 'homes'), TEAM_SCREEN_LIMIT: '1' }),
  makeDriver: () => {
    drivers += 1;
    return new LocalPoolDriver({
      workerScript,
      homesDir: path.join(dir, 'homes'),
      // Each replica its own displays, in this Jest worker's range.
      displayBaseFrom: 1_000 + Number(process.env.JEST_WORKER_ID ?? 0) * 1_000 + 800 + drivers * 10,
      stopGraceMs: 5_000,
    });
  },
  crash: (driver: PoolDriver) => (driver as LocalPoolDriver).orphanAll(),
  kill: async (binding) => {
    process.kill(-pidOf(binding), 'SIGKILL');
  },
  running,
});
