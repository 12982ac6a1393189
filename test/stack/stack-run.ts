import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '@lazyboy/localstack';
import { sleep } from '../support/index.js';

export const CLI = path.join(repoRoot, 'apps/cli/dist/main.js');
const BUILT = [CLI, 'apps/api/dist/main.js', 'apps/worker/dist/main.js', 'apps/web/.next/BUILD_ID'].map((f) =>
  path.resolve(repoRoot, f),
);

export interface StackJson {
  supervisorPid: number;
  ports: Record<string, number>;
  components: Array<{ name: string; pid: number }>;
}

/** `lazyboy up` started through the CLI as a terminal would: its own process group, so a Ctrl-C is `kill(-pid)`. */
export interface RunningUp {
  process: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
  state(): StackJson;
}

/**
 * `up`'s environment with its data in `dataDir`, by default a fresh one (0755: the servers' and computers'
 * own users walk through it).
 */
export function stackEnv(extra: NodeJS.ProcessEnv = {}, given?: string): { dataDir: string; env: NodeJS.ProcessEnv } {
  const missing = BUILT.filter((f) => !existsSync(f));
  if (missing.length > 0) throw new Error(`build first (./lazyboy test does): missing ${missing.join(', ')}`);
  const dataDir = given ?? mkdtempSync(path.join(os.tmpdir(), 'lazyboy-stack-'));
  if (!given) chmodSync(dataDir, 0o755);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LAZYBOY_DATA_DIR: dataDir,
    LAZYBOY_WEB_PORT: '0',
    LAZYBOY_API_PORT: '0',
    LAZYBOY_PG_PORT: '0',
    LAZYBOY_REDIS_PORT: '0',
    LAZYBOY_APP_TOKEN: '',
    // The suites sign their people up freely; `up` hands the policy to the API (an apiEnvSchema variable).
    LAZYBOY_SIGNUP: 'open',
    ...extra,
  };
  return { dataDir, env };
}

export interface StartUpOptions {
  /** Default 120 s. */
  timeoutMs?: number;
  /** The working directory `up` is started from (default this process's). */
  cwd?: string;
}

/** Starts `up` and resolves once it says it is up. */
export async function startUp(env: NodeJS.ProcessEnv, options: StartUpOptions = {}): Promise<RunningUp> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const child = spawn(process.execPath, [CLI, 'up'], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stateFile = path.join(env.LAZYBOY_DATA_DIR!, 'stack.json');
  const running: RunningUp = {
    process: child,
    exited,
    output: () => output,
    state: () => JSON.parse(readFileSync(stateFile, 'utf8')) as StackJson,
  };
  const deadline = Date.now() + timeoutMs;
  while (!/LazyBoy is up: http:\/\/\S+/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      // What did start stops as after a Ctrl-C, so that nothing outlives the test.
      if (child.exitCode === null) {
        process.kill(-child.pid!, 'SIGINT');
        await exited;
      }
      throw new Error(`up did not come up:\n${output}`);
    }
    await sleep(200);
  }
  return running;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' }) };
  } catch (error) {
    const e = error as { status: number; stdout: string };
    return { code: e.status, out: e.stdout };
  }
}
