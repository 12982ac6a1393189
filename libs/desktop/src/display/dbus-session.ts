import { runCommand } from '../process/run-command.js';
import type { RunAs } from '../process/run-as.js';
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
