import { spawn } from 'node:child_process';
import { launchSpec, type RunAs } from '../process/run-as.js';
import { runCommand } from '../process/run-command.js';
import { ATSPI_SCRIPT } from './atspi-script.js';
import { NativeHelperError } from './errors.js';

/** What the native layer needs from a ScreenManager (which satisfies it): the display's environment and user. */
export interface NativeDisplay {
  clientEnv(slot: number): Record<string, string>;
  clientRunAs(slot: number): RunAs | undefined;
}

/** Debian's interpreter: pyatspi is a Debian package, invisible to the pyenv python first on PATH. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

interface ClientContext {
  env: Record<string, string>;
  runAs: RunAs | undefined;
  cwd: string;
}

/**
 * Helpers run as the desktop user: the X cookie and the session bus belong to that user, and the agent's
 * programs must not be driven with the worker's rights. The cwd is the computer's home because the worker's
 * own directory may be unreachable for that user.
 */
export function clientContext(display: NativeDisplay, slot: number): ClientContext {
  const env = display.clientEnv(slot);
  return { env, runAs: display.clientRunAs(slot), cwd: env['HOME'] ?? '/' };
}

export async function runClient(
  display: NativeDisplay,
  slot: number,
  command: string,
  args: string[],
  timeoutMs = 10_000,
): Promise<string> {
  const { env, runAs, cwd } = clientContext(display, slot);
  const result = await runCommand(command, args, { env, runAs, cwd, timeoutMs });
  if (result.code !== 0) {
    const reason = result.code === null ? `timed out after ${timeoutMs} ms` : `exit code ${result.code}`;
    throw new NativeHelperError(`${command} ${args[0] ?? ''} failed (${reason}): ${result.stderr.trim().slice(0, 500)}`);
  }
  return result.stdout;
}

/** Like runClient for programs that write binary data (PNG, raw pixels); optional stdin. */
export async function runClientBinary(
  display: NativeDisplay,
  slot: number,
  command: string,
  args: string[],
  options: { input?: Buffer; timeoutMs?: number } = {},
): Promise<Buffer> {
  const { env, runAs, cwd } = clientContext(display, slot);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const launch = launchSpec(command, args, runAs);
  const child = spawn(launch.command, launch.args, {
    env,
    cwd,
    uid: launch.uid,
    gid: launch.gid,
    stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  if (options.input && child.stdin) child.stdin.end(options.input);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) {
    const reason = code === null ? `timed out after ${timeoutMs} ms` : `exit code ${code}`;
    throw new NativeHelperError(`${command} failed (${reason}): ${stderr.trim().slice(0, 500)}`);
  }
  return Buffer.concat(chunks);
}

/** Runs the embedded AT-SPI/X11 script with one request and returns its parsed JSON answer. */
export async function runAtspi<T>(
  display: NativeDisplay,
  slot: number,
  request: Record<string, unknown>,
  timeoutMs = 10_000,
): Promise<T | AtspiFailure> {
  const stdout = await runClient(display, slot, SYSTEM_PYTHON, ['-c', ATSPI_SCRIPT, JSON.stringify(request)], timeoutMs);
  try {
    return JSON.parse(stdout) as T | AtspiFailure;
  } catch {
    throw new NativeHelperError(`the AT-SPI reader printed no JSON: ${stdout.slice(0, 300)}`);
  }
}

/** The script's answer when it could not do what was asked. */
export interface AtspiFailure {
  ok: false;
  error: 'stale' | 'no_action' | 'refused' | 'not_editable' | 'bad_request' | 'failed';
  message: string;
  extents?: [number, number, number, number] | null;
}

export function isFailure(answer: { ok: boolean }): answer is AtspiFailure {
  return !answer.ok;
}
