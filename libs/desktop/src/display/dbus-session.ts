import { rmSync } from 'node:fs';
import { DesktopProcess } from '../process/desktop-process.js';
import { unixSocketAccepts } from '../process/net.js';
import { runCommand } from '../process/run-command.js';
import type { RunAs } from '../process/run-as.js';
import { waitFor } from '../process/wait.js';
import type { SandboxLayout } from '../workspace/sandbox-args.js';
import { ScreenBootError } from './errors.js';

export interface DbusSession {
  address: string;
  /** dbus-daemon forks away from dbus-launch into its own session; this is how we find it again. */
  pid: number;
}

/** Parses `dbus-launch --sh-syntax` output: DBUS_SESSION_BUS_ADDRESS='…'; … DBUS_SESSION_BUS_PID=123; */
export function parseDbusLaunchOutput(output: string): DbusSession | undefined {
  const address = /^DBUS_SESSION_BUS_ADDRESS='([^']+)'/m.exec(output)?.[1];
  const pid = /^DBUS_SESSION_BUS_PID=(\d+)/m.exec(output)?.[1];
  if (!address || !pid) return undefined;
  return { address, pid: Number(pid) };
}

/** A session bus for one display: XFCE, AT-SPI and Chromium all expect one. */
export async function launchDbusSession(
  runAs: RunAs | undefined,
  env: Record<string, string>,
  cwd: string,
  signal: AbortSignal,
): Promise<DbusSession> {
  const result = await runCommand('dbus-launch', ['--sh-syntax'], {
    runAs,
    env,
    cwd,
    signal,
    timeoutMs: 10_000,
    detached: true,
  });
  const session = parseDbusLaunchOutput(result.stdout);
  if (result.code !== 0 || !session) {
    throw new ScreenBootError(`dbus-launch failed (code ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`);
  }
  return session;
}

export interface SandboxedBusInput {
  /** The bus's socket file, in a folder bound into every sandbox of the screen and readable by the worker. */
  socket: string;
  runAs: RunAs | undefined;
  env: Record<string, string>;
  sandbox: SandboxLayout;
  logFile: string;
  signal: AbortSignal;
}

/**
 * The session bus of a sandboxed desktop (desktop-sandbox.ts): dbus-daemon itself, in the foreground inside
 * the desktop's sandbox, so that every service it activates (the accessibility bus, xfconfd, gvfs) runs
 * inside too. Not dbus-launch: its daemon outlives it, and the sandbox's pid namespace ends with it. On a
 * path socket: an abstract one would answer every process of the network namespace, another computer's
 * desktop included when workers share a host's network.
 */
export async function startSandboxedSessionBus(input: SandboxedBusInput): Promise<DbusSession> {
  rmSync(input.socket, { force: true });
  const daemon = await DesktopProcess.start({
    name: 'dbus',
    command: 'dbus-daemon',
    args: ['--session', '--nofork', '--nopidfile', `--address=unix:path=${input.socket}`],
    env: input.env,
    cwd: input.sandbox.homeDir,
    logFile: input.logFile,
    runAs: input.runAs,
    sandbox: input.sandbox,
  });
  await waitFor(async () => ((await unixSocketAccepts(input.socket)) ? true : undefined), {
    signal: input.signal,
    intervalMs: 50,
    failIf: () => daemon.exitError(),
  });
  return { address: `unix:path=${input.socket}`, pid: daemon.pid };
}

/**
 * The display's accessibility bus (started on demand through the session bus). Programs find it through
 * AT_SPI_BUS_ADDRESS too, which is what lets GUI programs started in the agent's sandbox — where the
 * session bus is out of reach — join the AT-SPI tree. Debian's bus listens on a path socket under /tmp.
 * Undefined when AT-SPI is not available (the desktop still works, native control falls back to xdotool).
 */
export async function accessibilityBusAddress(
  runAs: RunAs | undefined,
  env: Record<string, string>,
  cwd: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const result = await runCommand(
    'dbus-send',
    ['--session', '--print-reply=literal', '--dest=org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus.GetAddress'],
    { runAs, env, cwd, signal, timeoutMs: 10_000 },
  ).catch(() => undefined);
  const address = result?.code === 0 ? result.stdout.trim() : '';
  return /^unix:path=[^,]+/.test(address) ? address : undefined;
}

/** The socket file of a `unix:path=…` bus address. */
export function busSocketPath(address: string | undefined): string | undefined {
  return address ? /^unix:path=([^,]+)/.exec(address)?.[1] : undefined;
}
