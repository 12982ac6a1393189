import { rmSync } from 'node:fs';
import path from 'node:path';
import { DesktopProcess, leadsGroup, stopProcesses, stopProcessGroup } from '../process/desktop-process.js';
import { unixSocketAccepts } from '../process/net.js';
import { groupMembers, processGone, readProcStat } from '../process/proc-table.js';
import { runCommand } from '../process/run-command.js';
import { sendSignal, signalGroup } from '../process/signals.js';
import { pollUntil, waitFor } from '../process/wait.js';
import { EGRESS_PROXY_PORT, EGRESS_PROXY_URL } from '@lazyboy/contracts';
import { BrowserStateKeeper } from '../browser/browser-state-keeper.js';
import { CdpPipe } from '../browser/cdp-pipe.js';
import type { EgressProxy } from '../network/egress-proxy.js';
import { NetworkIsland } from '../network/network-island.js';
import { CHROMIUM_COMMAND, chromiumArgs, prepareProfile, profileDirFor } from './chromium.js';
import { accessibilityBusAddress, launchDbusSession, startSandboxedSessionBus, type DbusSession } from './dbus-session.js';
import { desktopEnv } from './desktop-env.js';
import { desktopSandboxLayout, type DesktopSandboxOptions } from './desktop-sandbox.js';
import { sandboxProcFor } from '../workspace/sandbox-proc.js';
import { findDesktopProcesses } from './desktop-processes.js';
import type { DesktopUser } from './desktop-user.js';
import { xServerHolding } from './display-numbers.js';
import { BrowserUnreachableError, DisplayInUseError, ScreenBootError, ScreenNotRunningError } from './errors.js';
import { ensureOwnedDir } from './owned-paths.js';
import type { DesktopProcessName, ProcessHealth, ScreenEndpoints, ScreenHealth, ScreenStatus } from './screen-types.js';
import { createXAuthority } from './x-authority.js';
import type { RunAs } from '../process/run-as.js';
import type { SandboxLayout } from '../workspace/sandbox-args.js';

export const SCREEN_WIDTH = 1280;
export const SCREEN_HEIGHT = 800;
/** Leaves room for the window manager's title bar inside the 800 px screen. */
const BROWSER_HEIGHT = 760;
const WAKE_CONFIRM_MS = 15_000;
const SUSPEND_CONFIRM_MS = 5_000;
/** A stop waits this long at most for the browser's state to be saved: a hung browser cannot hold it up. */
const STOP_SAVE_MS = 3_000;

/** What a screen needs from its computer, known once the computer's user and directories are ready. */
export interface ScreenContext {
  user: DesktopUser;
  runAs: RunAs | undefined;
  homeDir: string;
  runtimeDir: string;
  xdgRuntimeDir: string;
  logDir: string;
  /** False when the kernel forbids user namespaces: Chromium then runs with --no-sandbox. */
  sandbox: boolean;
  /**
   * The way out of every screen's network island. Undefined when the worker is not root: screens then
   * share the host's network (a single-user machine; nothing isolates one computer from another).
   */
  egress: EgressProxy | undefined;
  stopGraceMs: number;
  session: DesktopSession;
  /** Set: the session bus, the session or window manager and Chromium run inside bubblewrap (desktop-sandbox.ts). */
  desktopSandbox: DesktopSandboxOptions | undefined;
  /** How often the browser's tabs and cookies are looked at, and saved in its profile when they changed. */
  browserStateIntervalMs: number;
  log: (line: string) => void;
}

/** What runs besides Chromium on a display: xfwm4 alone, or the whole XFCE session (which starts xfwm4). */
export type DesktopSession = 'window-manager' | 'xfce';

export interface ScreenInit {
  slot: number;
  displayNumber: number;
  profileKey: string;
  context: Promise<ScreenContext>;
  /** Settles when the screen this one replaces (same slot, after an error) is gone. */
  after?: Promise<void> | undefined;
  bootTimeoutMs: number;
  onStatus: (screen: Screen) => void;
}

/** Start order: signals go out in it, so a wake resumes the X server before its clients. Stop runs backwards. */
const PROCESS_ORDER: DesktopProcessName[] = ['xvfb', 'dbus', 'window-manager', 'chromium', 'x11vnc'];

/**
 * One X display of a computer and everything on it — Xvfb, a session bus, xfwm4, Chromium, x11vnc — inside
 * a network island of its own. No part of it listens on a port: Chromium speaks CDP over a pipe to the
 * worker, x11vnc serves RFB on a Unix socket in the screen's 0700 directory, and the only address the
 * island can reach is the worker's egress proxy on its loopback.
 */
export class Screen {
  readonly slot: number;
  readonly displayNumber: number;
  readonly display: string;
  readonly profileKey: string;
  /** Resolves with the endpoints once everything answers; rejects with the reason the boot failed. */
  readonly ready: Promise<ScreenEndpoints>;
  private statusValue: ScreenStatus = { state: 'booting' };
  private readonly processes = new Map<Exclude<DesktopProcessName, 'dbus'>, DesktopProcess>();
  private dbus: DbusSession | undefined;
  private context: ScreenContext | undefined;
  private island: NetworkIsland | undefined;
  private screenRunAs: RunAs | undefined;
  /** The desktop programs' view of the file system, when they run sandboxed (made once the display is up). */
  private sandbox: SandboxLayout | undefined;
  private cdpPipe: CdpPipe | undefined;
  /** Restores the browser's tabs and cookies at launch, then keeps saving them in its profile. */
  private browserState: BrowserStateKeeper | undefined;
  private env: Record<string, string> | undefined;
  private readonly stopRequest = new AbortController();
  private stopping: Promise<void> | undefined;
  private step = 'waiting for the computer to be prepared';
  private readonly onStatus: (screen: Screen) => void;

  constructor(init: ScreenInit) {
    this.slot = init.slot;
    this.displayNumber = init.displayNumber;
    this.display = `:${init.displayNumber}`;
    this.profileKey = init.profileKey;
    this.onStatus = init.onStatus;
    this.ready = this.boot(init);
    // Failures are reported through the status and to whoever awaits `ready`; never as unhandled.
    this.ready.catch(() => undefined);
  }

  get status(): ScreenStatus {
    return this.statusValue;
  }

  get endpoints(): ScreenEndpoints | undefined {
    const status = this.statusValue;
    return status.state === 'running' || status.state === 'suspended' ? status.endpoints : undefined;
  }

  /** The environment X clients (xdotool, import, AT-SPI) need to reach this display as the desktop user. */
  get clientEnv(): Record<string, string> | undefined {
    return this.env ? { ...this.env } : undefined;
  }

  /** Who and where the screen's programs run: the computer's user, inside this screen's island. */
  get runAs(): RunAs | undefined {
    return this.screenRunAs;
  }

  /** The browser's DevTools pipe, once Chromium has started; the worker's only way to drive it. */
  get cdp(): CdpPipe | undefined {
    return this.cdpPipe;
  }

  /** SIGSTOP for every process of the screen: memory stays, CPU use stops. Resolves once they are all stopped. */
  async suspend(): Promise<void> {
    const status = this.statusValue;
    if (status.state !== 'running') return;
    // Saved while the browser still answers: a suspended computer is stopped after hours, maybe by a
    // worker that is killed rather than asked.
    this.browserState?.pause();
    await this.browserState?.save();
    this.signalAll('SIGSTOP');
    // A signalled process stops when the kernel next schedules it; a busy host takes a moment. Processes
    // forked meanwhile get their own SIGSTOP.
    const frozen = await pollUntil(() => {
      const running = this.processIds().filter((pid) => readProcStat(pid)?.state !== 'T');
      for (const pid of running) sendSignal(pid, 'SIGSTOP');
      return running.length === 0;
    }, SUSPEND_CONFIRM_MS);
    if (!frozen) this.context?.log(`${this.display}: some processes did not stop within ${SUSPEND_CONFIRM_MS} ms`);
    this.setStatus({ state: 'suspended', endpoints: status.endpoints });
  }

  /** SIGCONT, then waits until Chromium answers CDP again; a screen that does not answer goes to 'error'. */
  async wake(): Promise<void> {
    const status = this.statusValue;
    if (status.state !== 'suspended') return;
    this.signalAll('SIGCONT');
    await pollUntil(() => {
      const frozen = this.processIds().filter((pid) => readProcStat(pid)?.state === 'T');
      for (const pid of frozen) sendSignal(pid, 'SIGCONT');
      return frozen.length === 0;
    }, SUSPEND_CONFIRM_MS);
    const answered = await waitFor(async () => ((await this.cdpPipe?.answers()) ? true : undefined), {
      signal: AbortSignal.any([this.stopRequest.signal, AbortSignal.timeout(WAKE_CONFIRM_MS)]),
      intervalMs: 100,
      failIf: () => this.processes.get('chromium')?.exitError(),
    }).catch((error: unknown) => error);
    if (this.stopRequest.signal.aborted) return;
    if (answered === true) {
      this.setStatus({ state: 'running', endpoints: status.endpoints });
      this.browserState?.start();
    } else {
      this.fail(`Chromium did not answer CDP after wake: ${errorMessage(answered)}`);
    }
  }

  /** Stops everything of this screen (SIGTERM, SIGKILL after the grace) and waits until nothing is left. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopRequest.abort();
      await this.ready.catch(() => undefined);
      await this.saveBrowserStateBeforeStop();
      // A frozen X server would keep its clients from shutting down cleanly.
      if (this.statusValue.state === 'suspended') this.signalAll('SIGCONT');
      await this.teardown();
      this.setStatus({ state: 'stopped' });
    })();
    return this.stopping;
  }

  health(): ScreenHealth {
    const processes: ProcessHealth[] = [];
    for (const name of PROCESS_ORDER) {
      const pid = name === 'dbus' ? this.dbus?.pid : this.processes.get(name)?.pid;
      if (pid === undefined) continue;
      const state = readProcStat(pid)?.state;
      processes.push({ name, pid, alive: state !== undefined && state !== 'Z', frozen: state === 'T' });
    }
    const status = this.statusValue;
    return {
      slot: this.slot,
      display: this.display,
      profileKey: this.profileKey,
      state: status.state,
      ...(status.state === 'error' ? { error: status.error } : {}),
      processes,
    };
  }

  /** Every live process of the screen: the process groups, the session bus, and whatever carries its markers. */
  processIds(): number[] {
    const pids = new Set<number>();
    for (const child of this.processes.values()) for (const pid of groupMembers(child.pid)) pids.add(pid);
    if (this.dbus && !processGone(this.dbus.pid)) {
      pids.add(this.dbus.pid);
      if (leadsGroup(this.dbus.pid)) for (const pid of groupMembers(this.dbus.pid)) pids.add(pid);
    }
    if (this.context) for (const pid of this.ownProcesses(this.context)) pids.add(pid);
    return [...pids].filter((pid) => !processGone(pid)).sort((a, b) => a - b);
  }

  private async boot(init: ScreenInit): Promise<ScreenEndpoints> {
    const deadline = AbortSignal.timeout(init.bootTimeoutMs);
    const signal = AbortSignal.any([this.stopRequest.signal, deadline]);
    try {
      await init.after;
      const context = await init.context;
      this.context = context;
      signal.throwIfAborted();
      const endpoints = await this.launch(context, signal);
      signal.throwIfAborted();
      this.setStatus({ state: 'running', endpoints });
      this.watchForExits();
      this.browserState?.start();
      return endpoints;
    } catch (error) {
      if (this.stopRequest.signal.aborted) {
        throw new ScreenNotRunningError(`screen ${this.slot} (${this.display}) was stopped while ${this.step}`);
      }
      const reason = deadline.aborted ? `timed out after ${init.bootTimeoutMs} ms` : errorMessage(error);
      const bootError = new ScreenBootError(`screen ${this.slot} (${this.display}) failed while ${this.step}: ${reason}`);
      await this.teardown();
      this.fail(bootError.message);
      throw bootError;
    }
  }

  private async launch(context: ScreenContext, signal: AbortSignal): Promise<ScreenEndpoints> {
    const screenDir = path.join(context.runtimeDir, `screen-${this.slot}`);
    ensureOwnedDir(screenDir, context.runAs, 0o700);

    this.step = 'checking the display number';
    const holder = xServerHolding(this.displayNumber);
    if (holder !== undefined) throw new DisplayInUseError(`display ${this.display} is held by X server pid ${holder}`);

    this.step = 'making the network island';
    let egressEntry: Promise<void> = Promise.resolve();
    if (context.egress && context.runAs) {
      const island = await NetworkIsland.create();
      this.island = island;
      this.screenRunAs = { ...context.runAs, netns: island.path, userns: island.userPath };
      const egress = context.egress;
      // Made while the desktop boots; the browser only needs it for its first request.
      egressEntry = island.listen(EGRESS_PROXY_PORT).then((listener) => egress.attach(listener, `screen ${this.slot}`));
      egressEntry.catch(() => undefined);
    } else {
      this.screenRunAs = context.runAs;
    }
    const runAs = this.screenRunAs;

    this.step = 'writing the X cookie';
    const xauthority = path.join(screenDir, 'Xauthority');
    const baseEnv = desktopEnv({
      userName: context.user.name,
      homeDir: context.homeDir,
      runtimeDir: context.runtimeDir,
      xdgRuntimeDir: context.xdgRuntimeDir,
      slot: this.slot,
      display: this.display,
      xauthority,
      ...(this.island ? { proxyUrl: EGRESS_PROXY_URL } : {}),
    });
    await createXAuthority(xauthority, this.display, runAs, baseEnv);

    this.step = 'starting Xvfb';
    const xvfb = await this.spawn(
      context,
      'xvfb',
      'Xvfb',
      [
        this.display,
        '-screen',
        '0',
        `${SCREEN_WIDTH}x${SCREEN_HEIGHT}x24`,
        '-nolisten',
        'tcp',
        '-noreset',
        '-auth',
        xauthority,
        // Xvfb writes the display number here once it accepts clients: readiness without polling.
        '-displayfd',
        '3',
      ],
      baseEnv,
      1,
    );
    await waitForDisplayFd(xvfb, signal);

    this.step = 'starting the session bus';
    if (context.desktopSandbox) {
      this.sandbox = desktopSandboxLayout({
        homeDir: context.homeDir,
        runtimeDir: context.runtimeDir,
        xdgRuntimeDir: context.xdgRuntimeDir,
        hiddenDirs: context.desktopSandbox.hiddenDirs,
        screen: { dir: screenDir, displayNumber: this.displayNumber, xauthority },
        proc: sandboxProcFor(context.runAs),
      });
      this.dbus = await startSandboxedSessionBus({
        socket: path.join(screenDir, 'session-bus'),
        runAs,
        env: baseEnv,
        sandbox: this.sandbox,
        logFile: path.join(context.logDir, `screen-${this.slot}-dbus.log`),
        signal,
      });
    } else {
      this.dbus = await launchDbusSession(runAs, baseEnv, context.homeDir, signal);
    }
    const env: Record<string, string> = { ...baseEnv, DBUS_SESSION_BUS_ADDRESS: this.dbus.address };
    const a11y = await accessibilityBusAddress(runAs, env, context.homeDir, signal);
    if (a11y) env['AT_SPI_BUS_ADDRESS'] = a11y;
    else context.log(`no accessibility bus on ${this.display}: native windows are driven by coordinates only`);
    this.env = env;

    const profileDir = profileDirFor(context.homeDir, this.profileKey);
    const vncSocket = path.join(screenDir, 'vnc.sock');
    await bothOrNeither(
      (branchSignal) => this.startBrowser(context, env, profileDir, branchSignal),
      (branchSignal) => this.startViewer(context, env, vncSocket, branchSignal),
      signal,
    );
    this.step = 'opening the way out of the network island';
    await egressEntry;
    return {
      slot: this.slot,
      display: this.display,
      displayNumber: this.displayNumber,
      vncSocket,
      network: this.island ? 'island' : 'host',
      profileKey: this.profileKey,
      profileDir,
      xauthority,
      dbusAddress: this.dbus.address,
    };
  }

  /** xfwm4 first, so Chromium's window is managed (title bar, focus) from its first frame. */
  private async startBrowser(
    context: ScreenContext,
    env: Record<string, string>,
    profileDir: string,
    signal: AbortSignal,
  ): Promise<void> {
    this.step = context.session === 'xfce' ? 'starting the XFCE session' : 'starting the window manager';
    const wm =
      context.session === 'xfce'
        ? await this.spawn(context, 'window-manager', 'xfce4-session', [], env, 0, this.sandbox)
        : await this.spawn(context, 'window-manager', 'xfwm4', ['--compositor=off'], env, 0, this.sandbox);
    await waitFor(async () => ((await windowManagerAnswers(env, this.screenRunAs)) ? true : undefined), {
      signal,
      intervalMs: 100,
      failIf: () => wm.exitError(),
    });

    this.step = 'starting Chromium';
    prepareProfile(profileDir, context.runAs, context.homeDir);
    const chromium = await this.spawn(
      context,
      'chromium',
      CHROMIUM_COMMAND,
      chromiumArgs({
        profileDir,
        sandbox: context.sandbox,
        width: SCREEN_WIDTH,
        height: BROWSER_HEIGHT,
        ...(this.island ? { proxyServer: EGRESS_PROXY_URL } : {}),
      }),
      env,
      2,
      this.sandbox && { ...this.sandbox, bindDirs: [...(this.sandbox.bindDirs ?? []), profileDir] },
    );
    const toBrowser = chromium.pipes.get(3);
    const fromBrowser = chromium.pipes.get(4);
    if (!toBrowser || !fromBrowser) throw new BrowserUnreachableError('Chromium was started without its DevTools pipe');
    const pipe = new CdpPipe(toBrowser, fromBrowser);
    this.cdpPipe = pipe;
    this.step = 'waiting for CDP';
    await waitFor(async () => ((await pipe.answers(1_000)) ? true : undefined), {
      signal,
      intervalMs: 50,
      failIf: () => chromium.exitError(),
    });

    // Before anyone else drives the browser: the cookies, then the tabs that need them.
    this.step = "restoring the browser's tabs and cookies";
    this.browserState = new BrowserStateKeeper({
      browser: pipe,
      place: { profileDir, homeDir: context.homeDir, owner: context.runAs },
      intervalMs: context.browserStateIntervalMs,
      label: this.display,
      log: context.log,
    });
    await this.browserState.restore();
  }

  /** x11vnc on a Unix socket only (no TCP at all): the worker is the one that can open it. */
  private async startViewer(
    context: ScreenContext,
    env: Record<string, string>,
    vncSocket: string,
    signal: AbortSignal,
  ): Promise<void> {
    rmSync(vncSocket, { force: true });
    const x11vnc = await this.spawn(
      context,
      'x11vnc',
      'x11vnc',
      [
        '-display',
        this.display,
        '-auth',
        env['XAUTHORITY'] ?? '',
        '-unixsock',
        vncSocket,
        // Port 0 and v6 port -1: no TCP listener of any kind.
        '-rfbport',
        '0',
        '-rfbportv6',
        '-1',
        '-forever',
        '-shared',
        '-noxdamage',
        // No VNC password: the socket is in the screen's 0700 directory and viewers arrive through the
        // worker, which the authorising web proxy reaches with a signed, single-use grant.
        '-nopw',
      ],
      env,
    );
    await waitFor(async () => ((await unixSocketAccepts(vncSocket)) ? true : undefined), {
      signal,
      intervalMs: 50,
      failIf: () => x11vnc.exitError(),
    });
  }

  private async spawn(
    context: ScreenContext,
    name: Exclude<DesktopProcessName, 'dbus'>,
    command: string,
    args: string[],
    env: Record<string, string>,
    extraPipes: 0 | 1 | 2 = 0,
    sandbox?: SandboxLayout,
  ): Promise<DesktopProcess> {
    const child = await DesktopProcess.start({
      name,
      command,
      args,
      env,
      cwd: context.homeDir,
      logFile: path.join(context.logDir, `screen-${this.slot}-${name}.log`),
      runAs: this.screenRunAs,
      sandbox,
      extraPipes,
    });
    this.processes.set(name, child);
    return child;
  }

  /** After boot, a process that dies on its own (a crash, the browser window closed) puts the screen in 'error'. */
  private watchForExits(): void {
    for (const child of this.processes.values()) {
      void child.exited.then(() => {
        if (this.stopping || (this.statusValue.state !== 'running' && this.statusValue.state !== 'suspended')) return;
        this.fail(`${child.exitError()?.message ?? `${child.name} exited`}`);
      });
    }
  }

  private signalAll(signal: 'SIGSTOP' | 'SIGCONT'): void {
    for (const name of PROCESS_ORDER) {
      if (name === 'dbus') {
        if (this.dbus) signalLeaderOrProcess(this.dbus.pid, signal);
        continue;
      }
      this.processes.get(name)?.signalGroup(signal);
    }
    // Processes that left their groups: dbus-launch's X watcher, dbus-activated services, crash handlers.
    if (this.context) for (const pid of this.ownProcesses(this.context)) sendSignal(pid, signal);
  }

  private async teardown(): Promise<void> {
    const context = this.context;
    if (!context) return;
    const grace = context.stopGraceMs;
    const stop = (name: Exclude<DesktopProcessName, 'dbus'>): Promise<void> =>
      this.processes.get(name)?.stop(grace) ?? Promise.resolve();
    await Promise.all([stop('x11vnc'), stop('chromium')]);
    await stop('window-manager');
    if (this.dbus) await stopSessionBus(this.dbus.pid, grace);
    await stop('xvfb');
    await stopProcesses(this.ownProcesses(context), Math.min(grace, 2_000));
    rmSync(path.join(context.runtimeDir, `screen-${this.slot}`, 'Xauthority'), { force: true });
    rmSync(path.join(context.runtimeDir, `screen-${this.slot}`, 'vnc.sock'), { force: true });
    rmSync(path.join(context.runtimeDir, `screen-${this.slot}`, 'session-bus'), { force: true });
    this.cdpPipe = undefined;
    this.island?.close();
    this.island = undefined;
  }

  /** This screen's processes found in the process table (see findDesktopProcesses). */
  private ownProcesses(context: ScreenContext): number[] {
    return findDesktopProcesses({
      runtimeDir: context.runtimeDir,
      slot: this.slot,
      chromiumProfile: profileDirFor(context.homeDir, this.profileKey),
    });
  }

  /**
   * A running screen's browser state is saved before its browser is asked to quit (Chromium drops its
   * session cookies as it goes); a suspended one was saved at suspend, one that never came up has nothing
   * worth keeping. Either way no save runs once the teardown starts.
   */
  private async saveBrowserStateBeforeStop(): Promise<void> {
    const keeper = this.browserState;
    if (!keeper) return;
    if (this.statusValue.state === 'running') {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([keeper.save(), new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_SAVE_MS)))]);
      clearTimeout(timer);
    }
    keeper.stop();
  }

  private fail(error: string): void {
    this.browserState?.stop();
    this.context?.log(error);
    this.setStatus({ state: 'error', error });
  }

  private setStatus(status: ScreenStatus): void {
    this.statusValue = status;
    this.onStatus(this);
  }
}

/**
 * Runs two start-up branches side by side. When one fails the other is cancelled and awaited, so that
 * nothing is still spawning while the failed boot tears down; the first real failure is what is thrown.
 */
async function bothOrNeither<A, B>(
  first: (signal: AbortSignal) => Promise<A>,
  second: (signal: AbortSignal) => Promise<B>,
  signal: AbortSignal,
): Promise<[A, B]> {
  const cancel = new AbortController();
  const branchSignal = AbortSignal.any([signal, cancel.signal]);
  let failure: { error: unknown } | undefined;
  const noteFailure = (error: unknown): never => {
    failure ??= { error };
    cancel.abort();
    throw error;
  };
  const [a, b] = await Promise.allSettled([first(branchSignal).catch(noteFailure), second(branchSignal).catch(noteFailure)]);
  if (failure) throw failure.error;
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}

/** Resolves when Xvfb reports its display number on fd 3 (-displayfd). */
async function waitForDisplayFd(xvfb: DesktopProcess, signal: AbortSignal): Promise<void> {
  const fd3 = xvfb.pipes.get(3);
  if (!fd3) throw new Error('Xvfb was started without its readiness pipe');
  signal.throwIfAborted();
  try {
    await new Promise<void>((resolve, reject) => {
      let received = '';
      fd3.setEncoding('utf8');
      fd3.on('data', (chunk: string) => {
        received += chunk;
        if (received.includes('\n')) resolve();
      });
      void xvfb.exited.then(() => reject(xvfb.exitError()));
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  } finally {
    fd3.destroy();
  }
}

async function windowManagerAnswers(env: Record<string, string>, runAs: RunAs | undefined): Promise<boolean> {
  const result = await runCommand('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], { env, runAs, timeoutMs: 5_000 });
  return result.code === 0 && result.stdout.includes('window id');
}

/** dbus-daemon daemonises into its own session; signal its group only while it still leads it. */
function signalLeaderOrProcess(pid: number, signal: NodeJS.Signals): void {
  if (leadsGroup(pid)) signalGroup(pid, signal);
  else sendSignal(pid, signal);
}

async function stopSessionBus(pid: number, graceMs: number): Promise<void> {
  if (processGone(pid)) return;
  if (leadsGroup(pid)) {
    await stopProcessGroup(pid, graceMs);
    return;
  }
  await stopProcesses([pid], graceMs);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
