import { afterAll, describe, expect, it } from '@jest/globals';
import { ConfigError, type PoolWorkerEnv, type WorkerEnv } from '@lazyboy/contracts';
import { ScreenManager } from '@lazyboy/desktop';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScreensPlacement } from '../computer-screens.js';
import { PoolWorker } from './pool-worker.js';

// A static pool's workers share one homes directory: an assignment's home key names the computer's home in
// it. Without one (a pod, whose home is its own volume) the worker keeps LAZYBOY_COMPUTER_HOME.

const poolToken = 'p'.repeat(40);
const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-homes-dir-'));
const homesDir = path.join(dir, 'homes');
mkdirSync(homesDir);

const env: PoolWorkerEnv = {
  LAZYBOY_WORKER_HOST: '127.0.0.1',
  LAZYBOY_WORKER_PORT: 0,
  LAZYBOY_POOL_TOKEN: poolToken,
  TEAM_SCREEN_LIMIT: 2,
  LAZYBOY_DISPLAY_BASE: 0,
  LAZYBOY_DESKTOP_SESSION: 'window-manager',
  LAZYBOY_EGRESS_PRIVATE_NETWORKS: 'deny',
  LAZYBOY_EGRESS_ALLOWED_DOMAINS: null,
  LAZYBOY_SHELL_BOUNDARY: 'bubblewrap',
};

const workers: PoolWorker[] = [];

/** A listening pool worker; `made` records the settings its computer's screens were made with. */
async function poolWorker(overrides: Partial<PoolWorkerEnv>) {
  const made: WorkerEnv[] = [];
  const placements: ScreensPlacement[] = [];
  const worker = new PoolWorker(
    { ...env, ...overrides },
    {
      log: () => undefined,
      makeScreens: (config, placement) => {
        made.push(config);
        placements.push(placement);
        // Never started: constructing a ScreenManager touches nothing on disk.
        return new ScreenManager({
          computerId: config.LAZYBOY_COMPUTER_ID,
          homeDir: path.join(dir, 'unused-home'),
          runtimeDir: path.join(dir, 'unused-run'),
          screenLimit: 2,
        });
      },
    },
  );
  workers.push(worker);
  const base = `http://127.0.0.1:${(await worker.listen()).port}`;
  const assign = (body: Record<string, unknown>) =>
    fetch(`${base}/pool/assign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${poolToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ computerId: 'comp-1', controlToken: 'c'.repeat(40), bindFence: 1, screenLimit: 1, ...body }),
    });
  return { worker, assign, made, placements };
}

afterAll(async () => {
  for (const worker of workers) await worker.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a pool worker's homes directory", () => {
  it("makes the computer's home <LAZYBOY_HOMES_DIR>/<homeKey>, 0700, and gives it to the computer's screens", async () => {
    const { assign, made } = await poolWorker({ LAZYBOY_HOMES_DIR: homesDir });
    expect((await assign({ homeKey: 'agent-0191c2d4-aaaa-7bbb-8ccc-0123456789ab' })).status).toBe(200);
    const home = path.join(homesDir, 'agent-0191c2d4-aaaa-7bbb-8ccc-0123456789ab');
    expect(statSync(home).isDirectory()).toBe(true);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(made.map((config) => config.LAZYBOY_COMPUTER_HOME)).toEqual([home]);
  });

  it('sandboxes the desktop of a worker that mounts every home, and only then', async () => {
    // screensOf turns a shared homes directory into ScreenManager's desktopSandbox (desktop-sandbox.spec.ts).
    const shared = await poolWorker({ LAZYBOY_HOMES_DIR: homesDir });
    expect((await shared.assign({ homeKey: 'sandboxed' })).status).toBe(200);
    expect(shared.placements).toEqual([{ sharedHomesDir: homesDir }]);

    const pod = await poolWorker({ LAZYBOY_COMPUTER_HOME: path.join(dir, 'pod-home') });
    expect((await pod.assign({})).status).toBe(200);
    expect(pod.placements).toEqual([{ sharedHomesDir: undefined }]);
  });

  it('keeps a home that is there already, with what is in it', async () => {
    const home = path.join(homesDir, 'team-kept');
    mkdirSync(home, { mode: 0o750 });
    writeFileSync(path.join(home, 'notes.txt'), 'kept');
    const { assign, made } = await poolWorker({ LAZYBOY_HOMES_DIR: homesDir });
    expect((await assign({ homeKey: 'team-kept' })).status).toBe(200);
    expect(made[0]!.LAZYBOY_COMPUTER_HOME).toBe(home);
    expect(statSync(path.join(home, 'notes.txt')).size).toBe(4);
  });

  it('refuses home keys that are not one plain name, and a link in the place of a home; it stays unassigned', async () => {
    symlinkSync(os.tmpdir(), path.join(homesDir, 'agent-linked'));
    const { worker, assign, made } = await poolWorker({ LAZYBOY_HOMES_DIR: homesDir });
    for (const homeKey of ['../escape', 'a/b', '.hidden', 'a.b', '', 'x'.repeat(101)]) {
      const refused = await assign({ homeKey });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    }
    const linked = await assign({ homeKey: 'agent-linked' });
    expect(linked.status).toBe(500);
    expect(await linked.json()).toMatchObject({ error: { code: 'INTERNAL', message: expect.stringMatching(/not a directory/) } });
    expect(worker.computerId).toBeUndefined();
    expect(made).toEqual([]);
  });

  it('refuses a home key without a homes directory (it would give every computer one home), and is the same as before without one', async () => {
    const podHome = path.join(dir, 'volume', 'home');
    const refusing = await poolWorker({ LAZYBOY_COMPUTER_HOME: podHome });
    const refused = await refusing.assign({ homeKey: 'agent-1' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'NO_HOMES_DIR' } });
    expect(refusing.worker.computerId).toBeUndefined();

    // A pod: no home key, LAZYBOY_COMPUTER_HOME as it was given.
    expect((await refusing.assign({})).status).toBe(200);
    expect(refusing.made.map((config) => config.LAZYBOY_COMPUTER_HOME)).toEqual([podHome]);
  });

  it('does not start when the homes directory is missing or not a directory (a volume not mounted)', async () => {
    const file = path.join(dir, 'a-file');
    writeFileSync(file, '');
    for (const missing of [path.join(dir, 'not-mounted'), file]) {
      const worker = new PoolWorker({ ...env, LAZYBOY_HOMES_DIR: missing }, { log: () => undefined });
      await expect(worker.listen()).rejects.toThrow(ConfigError);
      await expect(worker.listen()).rejects.toThrow(/LAZYBOY_HOMES_DIR .* mount the homes volume there/);
    }
  });
});
