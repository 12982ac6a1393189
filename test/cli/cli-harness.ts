import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '@lazyboy/localstack';
import { ScriptedModelServer, type Script } from '@lazyboy/model';
import { sleep } from '../support/index.js';

export const CLI = path.join(repoRoot, 'apps/cli/dist/main.js');

export interface CliRun {
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** Resolves when stdout+stderr contain `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  exit: Promise<number | null>;
}

/** A scripted model server and a LAZYBOY_HOME of their own for one CLI test. */
export async function cliFixture(script: Script) {
  if (!existsSync(CLI)) throw new Error('build first (./lazyboy test does): apps/cli/dist/main.js is missing');
  const server = await ScriptedModelServer.start(script);
  const home = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-cli-home-'));
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-cli-work-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LAZYBOY_MODEL_PROVIDER: 'openai-chat',
    LAZYBOY_MODEL_BASE_URL: server.url,
    LAZYBOY_MODEL: 'scripted-model',
    LAZYBOY_HOME: home,
  };
  const start = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, stdin?: string): CliRun => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: workDir,
      env: { ...env, ...extraEnv },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    if (stdin !== undefined) child.stdin!.end(stdin);
    const exit = new Promise<number | null>((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))),
    );
    return {
      child,
      output: () => ({ stdout, stderr }),
      exit,
      waitFor: async (text, timeoutMs = 20_000) => {
        const deadline = Date.now() + timeoutMs;
        const has = () => (typeof text === 'string' ? (stdout + stderr).includes(text) : text.test(stdout + stderr));
        while (!has()) {
          if (Date.now() > deadline || child.exitCode !== null)
            throw new Error(`never saw ${String(text)}:\n${stdout}\n${stderr}`);
          await sleep(50);
        }
      },
    };
  };
  /** Runs to the end with `stdin` (closed after) and returns exit code and output. */
  const run = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}, stdin = '') => {
    const proc = start(args, extraEnv, stdin);
    const code = await proc.exit;
    return { code, ...proc.output() };
  };
  const close = async () => {
    await server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  };
  return { server, home, workDir, env, start, run, close };
}
