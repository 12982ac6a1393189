import { spawn } from 'node:child_process';
import { launchSpec, type RunAs } from './run-as.js';
import type { SandboxLayout } from '../workspace/sandbox-args.js';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCommandOptions {
  env?: Record<string, string>;
  cwd?: string;
  runAs?: RunAs | undefined;
  /** Run inside bubblewrap with this view of the file system (a computer's desktop sandbox). */
  sandbox?: SandboxLayout | undefined;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** In its own process group, so that daemons it leaves behind never share the worker's group. */
  detached?: boolean;
}

/**
 * Runs a short command and collects its output. Resolves soon after the command exits even when a
 * daemon it forked keeps the output pipes open (dbus-launch does exactly that).
 */
export async function runCommand(command: string, args: string[], options: RunCommandOptions = {}): Promise<CommandResult> {
  const launch = launchSpec(command, args, options.runAs, options.sandbox);
  const child = spawn(launch.command, launch.args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
    uid: launch.uid,
    gid: launch.gid,
    timeout: options.timeoutMs ?? 15_000,
    signal: options.signal,
    killSignal: 'SIGKILL',
  });
  let stdout = '';
  let stderr = '';
  let closed = false;
  child.once('close', () => (closed = true));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  // Give the pipes a moment to drain what the command itself wrote, then let go of them.
  if (!closed) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 500);
      child.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  child.stdout.destroy();
  child.stderr.destroy();
  return { code, stdout, stderr };
}
