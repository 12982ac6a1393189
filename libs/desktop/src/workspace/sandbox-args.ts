import path from 'node:path';
import type { SandboxProc } from './sandbox-proc.js';

export interface SandboxLayout {
  /** Bound read-write at the same path; the command starts here unless `cwd` says otherwise. */
  homeDir: string;
  /** Where the command starts: the home or a directory inside it. */
  cwd: string;
  /**
   * Covered with an empty tmpfs (after the read-only root, before the home is bound back): the parent of
   * homes, so other computers' homes are invisible, and whatever else the worker keeps on disk.
   */
  hiddenDirs: readonly string[];
  /** The display's X socket (`/tmp/.X11-unix/XN`) and cookie, bound read-only when a screen is running. */
  xSocket?: string | undefined;
  xauthority?: string | undefined;
  /** The display's accessibility bus socket, so GUI programs join the AT-SPI tree. */
  a11ySocket?: string | undefined;
  /** Folders inside the home covered with an empty tmpfs (the computer's own data: browser profiles). */
  privateDirs?: readonly string[];
  /**
   * Bound read-write at the same path after everything above (a desktop's runtime folders, one browser
   * profile inside a private dir). Each must exist.
   */
  bindDirs?: readonly string[];
  /**
   * Keep the network namespace the sandbox starts in: the screen's island, whose only way out is the egress
   * proxy. Otherwise the sandbox gets an empty one (no network at all).
   */
  shareNetwork?: boolean;
  /**
   * Start a session of its own (setsid), the default: a shell's command then cannot push keystrokes into a
   * terminal of the worker's (TIOCSTI). Desktop programs have no terminal and keep the process group they
   * were started in, so that the worker's group signals (suspend, wake, stop) reach everything inside.
   */
  newSession?: boolean;
  /** `own` (the default): a fresh /proc and PID namespace; `shared`: the container's /proc (sandbox-proc.ts). */
  proc?: SandboxProc;
}

/** Never hidden: a tmpfs over these would leave the sandbox without a working system. */
const SYSTEM_DIRS = new Set([
  '/',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/etc',
  '/dev',
  '/proc',
  '/sys',
  '/var',
  '/tmp',
]);

/** Always hidden: other users' homes, root's, and runtime sockets such as a container engine's. */
export const DEFAULT_HIDDEN_DIRS: readonly string[] = ['/home', '/root', '/run'];

/** The bubblewrap command line for `bash -c command` (an agent's shell command). */
export function bwrapArguments(layout: SandboxLayout, command: string): string[] {
  return bwrapCommand(layout, ['bash', '-c', command]);
}

/**
 * The bubblewrap command line running `argv` in the sandbox. Order matters: bwrap applies mounts in
 * sequence, so the tmpfs layers come after the read-only root and the home, socket and cookie are bound
 * back on top of them.
 */
export function bwrapCommand(layout: SandboxLayout, argv: readonly string[]): string[] {
  const homeDir = path.resolve(layout.homeDir);
  const ownProc = layout.proc !== 'shared';
  // `--ro-bind / /` brings the container's /proc along, read-only; `--proc` covers it with the sandbox's
  // own, else it is bound again writable (Chromium's sandbox writes its namespaces' uid_map there).
  const proc = ownProc ? ['--proc', '/proc'] : ['--bind', '/proc', '/proc'];
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', ...proc, '--tmpfs', '/tmp'];
  const covered = ['/tmp'];
  for (const dir of [...new Set(layout.hiddenDirs.map((d) => path.resolve(d)))].sort()) {
    // Inside an earlier tmpfs (or that tmpfs: /tmp, the parent of a home directly under it) it is hidden
    // already, and bwrap could not find it to mount on.
    if (covered.some((parent) => isInside(dir, parent))) continue;
    if (SYSTEM_DIRS.has(dir)) throw new RangeError(`refusing to hide system directory ${dir}`);
    args.push('--tmpfs', dir);
    covered.push(dir);
  }
  args.push('--bind', homeDir, homeDir);
  for (const dir of layout.privateDirs ?? []) {
    const inside = path.resolve(homeDir, dir);
    if (!isInside(inside, homeDir) || inside === homeDir) throw new RangeError(`private dir ${dir} is not inside the home`);
    args.push('--tmpfs', inside);
  }
  for (const dir of layout.bindDirs ?? []) args.push('--bind', path.resolve(dir), path.resolve(dir));
  if (layout.xSocket) args.push('--ro-bind', layout.xSocket, layout.xSocket);
  if (layout.xauthority) args.push('--ro-bind', layout.xauthority, layout.xauthority);
  if (layout.a11ySocket) args.push('--ro-bind', layout.a11ySocket, layout.a11ySocket);
  args.push(
    '--chdir',
    layout.cwd,
    // Own user, pid, ipc, uts and cgroup namespaces. With the container's /proc, no pid namespace (its
    // /proc would show the processes by another namespace's pids) and the container's IPC one: the X
    // server's, whose MIT-SHM otherwise attaches the wrong segment under a colliding id (the container holds
    // this computer alone). The network is the screen's island when there is one (nothing but the island's
    // loopback and the egress proxy), else an empty namespace of its own.
    ...(ownProc ? ['--unshare-all'] : ['--unshare-user-try', '--unshare-uts', '--unshare-cgroup-try']),
    layout.shareNetwork ? '--share-net' : '--unshare-net',
    '--die-with-parent',
    // setsid: no TIOCSTI into a terminal of the worker's.
    ...(layout.newSession === false ? [] : ['--new-session']),
    '--',
    ...argv,
  );
  return args;
}

export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
