import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_EGRESS_POLICY, type EgressPolicy } from '@lazyboy/contracts';
import { chromium, type Browser } from 'playwright-core';
import { DEFAULT_BROWSER_STATE_INTERVAL_MS } from '../browser/browser-state-keeper.js';
import type { CdpPipe } from '../browser/cdp-pipe.js';
import { EgressProxy, type EgressRefusal } from '../network/egress-proxy.js';
import { stopProcesses } from '../process/desktop-process.js';
import { privateMemoryBytes } from '../process/proc-table.js';
import { removeChromiumTempFoldersOf } from './computer-leftovers.js';
import { desktopEnv } from './desktop-env.js';
import { desktopSandboxLayout, type DesktopSandboxOptions } from './desktop-sandbox.js';
import { runCommand } from '../process/run-command.js';
import { findDesktopProcesses } from './desktop-processes.js';
import { desktopUserName, resolveDesktopUser, type DesktopUser } from './desktop-user.js';
import { displayNumberForSlot } from './display-numbers.js';
import { PROFILE_KEY_PATTERN, profileRootFor } from './chromium.js';
import {
  ComputerUnavailableError,
  DesktopSetupError,
  ProfileInUseError,
  ProfileMismatchError,
  ScreenLimitError,
  ScreenNotRunningError,
  BrowserUnreachableError,
} from './errors.js';
import { assertReachableBy, chownTreeIfNeeded, ensureOwnedDir } from './owned-paths.js';
import { probeChromiumSandbox } from './sandbox-probe.js';
import { Screen, type DesktopSession, type ScreenContext } from './screen.js';
import type { DesktopHealth, ScreenEndpoints, ScreenStatus } from './screen-types.js';
import { MAX_SCREEN_LIMIT, screenLimitFromEnv } from './screen-limit.js';
import type { RunAs } from '../process/run-as.js';
import type { SandboxLayout } from '../workspace/sandbox-args.js';
import { sandboxProcFor } from '../workspace/sandbox-proc.js';

export interface ScreenManagerOptions {
  /** Names the computer's user (`lazyboy-<id>`) and appears in logs. */
  computerId: string;
  /** The computer's home: Chromium profiles, XFCE and dbus state live here. Created 0700 for the desktop user. */
  homeDir: string;
  /** Cookies, logs, the ready marker. Created 0700 for the desktop user; one ScreenManager per directory. */
  runtimeDir: string;
  /** Slot N runs on display :(displayBase + N + 1). Default 0 (slot 0 = :1). */
  displayBase?: number;
  /** Slots 0..screenLimit-1 may run. Default TEAM_SCREEN_LIMIT, else 8. */
  screenLimit?: number;
  /** The system user to run as when the worker is root. Default `desktopUserName(computerId)`. */
  userName?: string;
  /** Time between SIGTERM and SIGKILL when stopping. Default 5 s. */
  stopGraceMs?: number;
  /** A screen that is not up after this long goes to 'error'. Default 60 s. */
  bootTimeoutMs?: number;
  /**
   * `window-manager` (default): xfwm4 alone, the fastest boot. `xfce`: the full XFCE session (panel,
   * desktop, settings) for agents and people who need the whole desktop; about a second slower.
   */
  session?: DesktopSession;
  /**
   * How often each running browser's tabs and cookies are looked at (two CDP calls), and written to its
   * profile when they changed: the most a killed worker loses. Default 5 s.
   */
  browserStateIntervalMs?: number;
  /** What the screens' programs may reach through the egress proxy. Default: public hosts, no LAN. */
  egressPolicy?: EgressPolicy;
  /**
   * Run the desktop's programs (session bus, session or window manager, Chromium and all they start) inside
   * bubblewrap, seeing only this computer's home: for a home in a homes directory other computers' homes
   * share while their desktops run as the same user (a static pool). A screen cannot boot when the sandbox
   * cannot be built; it never runs without. Default: unsandboxed (a pod or a computer's own user is the boundary).
   */
  desktopSandbox?: DesktopSandboxOptions;
  /**
   * The home's directory is a homes volume other workers share (a static pool): as root, the computer's
   * user takes its uid from the homes there (`sharedHomeUid`), not from this worker's password file.
   */
  sharedHomes?: boolean;
  /** Each connection the egress proxy refused (the refusal log). Default: a line in `log`. */
  onEgressRefused?: (refusal: EgressRefusal) => void;
  log?: (line: string) => void;
}

export interface ScreenRequest {
  /** Which Chromium profile (cookies, storage) the screen's browser uses. Default `screen-<slot>`. */
  profileKey?: string;
}

/**
 * Owns the screens of one computer: starts them on demand as plain processes running as the computer's
 * user, suspends and wakes them together, and stops them leaving nothing behind.
 */
export class ScreenManager {
  readonly computerId: string;
  readonly homeDir: string;
  readonly runtimeDir: string;
  readonly displayBase: number;
  readonly screenLimit: number;
  /** Exists (with slot 0's endpoints as JSON) while slot 0 is up, suspended included. */
  readonly readyMarker: string;
  private readonly userName: string;
  private readonly stopGraceMs: number;
  private readonly bootTimeoutMs: number;
  private readonly session: DesktopSession;
  private readonly desktopSandbox: DesktopSandboxOptions | undefined;
  private readonly sharedHomes: boolean;
  private readonly browserStateIntervalMs: number;
  private readonly log: (line: string) => void;
  private readonly egressPolicy: EgressPolicy;
  private readonly onEgressRefused: (refusal: EgressRefusal) => void;
  private egress: EgressProxy | undefined;
  private readonly screens = new Map<number, Screen>();
  private prepared: Promise<ScreenContext> | undefined;
  private desktopUser: DesktopUser | undefined;
  private suspended = false;
  private stopping = false;
  private lifecycle: Promise<unknown> = Promise.resolve();

  constructor(options: ScreenManagerOptions) {
    this.computerId = options.computerId;
    this.homeDir = path.resolve(options.homeDir);
    this.runtimeDir = path.resolve(options.runtimeDir);
    this.displayBase = options.displayBase ?? 0;
    this.screenLimit = options.screenLimit ?? screenLimitFromEnv();
    this.userName = options.userName ?? desktopUserName(options.computerId);
    this.stopGraceMs = options.stopGraceMs ?? 5_000;
    this.bootTimeoutMs = options.bootTimeoutMs ?? 60_000;
    this.session = options.session ?? 'window-manager';
    this.desktopSandbox = options.desktopSandbox;
    this.sharedHomes = options.sharedHomes ?? false;
    this.browserStateIntervalMs = options.browserStateIntervalMs ?? DEFAULT_BROWSER_STATE_INTERVAL_MS;
    this.log = options.log ?? ((line) => console.error(`[desktop ${options.computerId}] ${line}`));
    this.readyMarker = path.join(this.runtimeDir, 'ready');
    this.egressPolicy = options.egressPolicy ?? DEFAULT_EGRESS_POLICY;
    this.onEgressRefused =
      options.onEgressRefused ?? ((r) => this.log(`egress refused: ${r.origin} → ${r.host}:${r.port} (${r.reason})`));
    if (!Number.isInteger(this.displayBase) || this.displayBase < 0) {
      throw new RangeError(`displayBase must be a non-negative integer, got ${this.displayBase}`);
    }
    if (!Number.isInteger(this.screenLimit) || this.screenLimit < 1 || this.screenLimit > MAX_SCREEN_LIMIT) {
      throw new RangeError(`screenLimit must be an integer from 1 to ${MAX_SCREEN_LIMIT}, got ${this.screenLimit}`);
    }
  }

  /** The X display name of a slot, e.g. ':1' for slot 0 with base 0. */
  displayForSlot(slot: number): string {
    return `:${displayNumberForSlot(slot, this.displayBase)}`;
  }

  /** The account the desktop runs as, once the first screen has prepared it. */
  get user(): DesktopUser | undefined {
    return this.desktopUser;
  }

  get isSuspended(): boolean {
    return this.suspended;
  }

  /**
   * Starts the slot's screen in the background unless it is already booting or up, and returns its status at
   * once. A screen in 'error' is torn down and booted afresh.
   */
  startScreen(slot: number, request: ScreenRequest = {}): ScreenStatus {
    this.checkSlot(slot);
    const profileKey = request.profileKey ?? `screen-${slot}`;
    if (!PROFILE_KEY_PATTERN.test(profileKey)) {
      throw new RangeError(`profileKey must match ${PROFILE_KEY_PATTERN.source}, got '${profileKey}'`);
    }
    if (this.stopping) throw new ComputerUnavailableError(`computer ${this.computerId} is stopping`);
    if (this.suspended) throw new ComputerUnavailableError(`computer ${this.computerId} is suspended; wake it first`);
    const current = this.screens.get(slot);
    if (current && current.status.state !== 'error') {
      if (current.profileKey !== profileKey) {
        throw new ProfileMismatchError(
          `slot ${slot} runs profile '${current.profileKey}', not '${profileKey}'; stop the screen to switch`,
        );
      }
      return current.status;
    }
    for (const other of this.screens.values()) {
      if (other.slot !== slot && other.profileKey === profileKey) {
        throw new ProfileInUseError(`profile '${profileKey}' is in use on slot ${other.slot}`);
      }
    }
    const screen = new Screen({
      slot,
      displayNumber: displayNumberForSlot(slot, this.displayBase),
      profileKey,
      context: this.prepare(),
      after: current?.stop(),
      bootTimeoutMs: this.bootTimeoutMs,
      onStatus: (changed) => this.onScreenStatus(changed),
    });
    this.screens.set(slot, screen);
    return screen.status;
  }

  /** Starts the screen if needed and resolves with its endpoints once Chromium and VNC answer. */
  async ensureScreen(slot: number, request: ScreenRequest = {}): Promise<ScreenEndpoints> {
    this.startScreen(slot, request);
    return this.waitReady(slot);
  }

  /**
   * Resolves with the endpoints once the slot's boot has finished (a suspended screen counts as up); rejects
   * with the boot's error, or when the screen has failed or stopped since.
   */
  async waitReady(slot: number): Promise<ScreenEndpoints> {
    const screen = this.screens.get(slot);
    if (!screen) throw new ScreenNotRunningError(`slot ${slot} has no screen`);
    const endpoints = await screen.ready;
    const status = screen.status;
    if (status.state === 'error') throw new ScreenNotRunningError(`slot ${slot} failed: ${status.error}`);
    if (status.state === 'stopped') throw new ScreenNotRunningError(`slot ${slot} has been stopped`);
    return endpoints;
  }

  state(slot: number): ScreenStatus {
    return this.screens.get(slot)?.status ?? { state: 'stopped' };
  }

  endpoints(slot: number): ScreenEndpoints | undefined {
    return this.screens.get(slot)?.endpoints;
  }

  /**
   * The environment for running X clients (xdotool, import, AT-SPI through /usr/bin/python3) against the
   * slot's display: DISPLAY, XAUTHORITY, DBUS_SESSION_BUS_ADDRESS, HOME and the computer's markers, so a
   * stop finds and ends them too. Run them as `user` when the worker is root.
   */
  clientEnv(slot: number): Record<string, string> {
    const env = this.screens.get(slot)?.clientEnv;
    if (!env) throw new ScreenNotRunningError(`slot ${slot} has no running screen`);
    return env;
  }

  /**
   * Who and where the slot's helpers must run (the computer's user, in the screen's network island): an
   * X client outside the island would reach the display but not the session bus, and would carry the
   * worker's network instead of the screen's.
   */
  clientRunAs(slot: number): RunAs | undefined {
    const screen = this.screens.get(slot);
    if (!screen?.clientEnv) throw new ScreenNotRunningError(`slot ${slot} has no running screen`);
    return screen.runAs;
  }

  /** The slot's DevTools pipe; a new one means the browser was started again. */
  cdp(slot: number): CdpPipe {
    const pipe = this.screens.get(slot)?.cdp;
    if (!pipe || pipe.closed) throw new BrowserUnreachableError(`slot ${slot} has no running browser`);
    return pipe;
  }

  /**
   * A playwright-core Browser on the slot's Chromium, as a client of its own over the DevTools pipe:
   * `close()` on it only disconnects this client.
   */
  async connectBrowser(slot: number): Promise<Browser> {
    return chromium.connectOverCDP(await this.cdp(slot).connect());
  }

  health(): DesktopHealth {
    const user = this.desktopUser;
    return {
      computerId: this.computerId,
      ...(user ? { user: { name: user.name, uid: user.uid, dedicated: user.dedicated } } : {}),
      suspended: this.suspended,
      ready: existsSync(this.readyMarker),
      screens: [...this.screens.values()].sort((a, b) => a.slot - b.slot).map((screen) => screen.health()),
    };
  }

  /** Live pids of one slot's screen, or of the whole computer. */
  processIds(slot?: number): number[] {
    const screens = slot === undefined ? [...this.screens.values()] : [this.screens.get(slot)].filter((s) => s !== undefined);
    const pids = new Set<number>();
    for (const screen of screens) for (const pid of screen.processIds()) pids.add(pid);
    if (slot === undefined) for (const pid of this.computerProcesses()) pids.add(pid);
    return [...pids].sort((a, b) => a - b);
  }

  /** Private memory (Private_Clean + Private_Dirty) of one slot's processes, or of the whole computer. */
  privateMemoryBytes(slot?: number): number {
    return this.processIds(slot).reduce((sum, pid) => sum + privateMemoryBytes(pid), 0);
  }

  /**
   * Freezes every desktop process (SIGSTOP): memory stays, CPU use stops. Screens still booting finish first.
   * New screens are refused until `wake()`.
   */
  suspend(): Promise<void> {
    return this.serialize(async () => {
      if (this.suspended) return;
      this.suspended = true;
      await Promise.all([...this.screens.values()].map((screen) => screen.ready.catch(() => undefined)));
      await Promise.all([...this.screens.values()].map((screen) => screen.suspend()));
      this.log('suspended');
    });
  }

  /** SIGCONT, then confirms each screen's Chromium answers CDP again (a screen that does not goes to 'error'). */
  wake(): Promise<void> {
    return this.serialize(async () => {
      if (!this.suspended) return;
      try {
        await Promise.all([...this.screens.values()].map((screen) => screen.wake()));
      } finally {
        this.suspended = false;
      }
      this.log('woken');
    });
  }

  /** Stops one screen: SIGTERM, SIGKILL after the grace, and waits until none of its processes is left. */
  stopScreen(slot: number): Promise<void> {
    return this.serialize(async () => {
      const screen = this.screens.get(slot);
      if (!screen) return;
      await screen.stop();
      if (this.screens.get(slot) === screen) this.screens.delete(slot);
    });
  }

  /** Stops every screen and anything else started for this runtime directory. The manager can start again later. */
  stop(): Promise<void> {
    return this.serialize(() => this.stopEverything());
  }

  /**
   * Stops everything (stop()) and removes what the computer left in temporary space: its runtime directory
   * and the folders its Chromiums made in /tmp (their process-singleton sockets, owned by the computer's
   * own user). For a worker going away; a later screen prepares everything afresh.
   */
  dispose(): Promise<void> {
    // One step: a screen asked for in between would otherwise start in the directory about to go.
    return this.serialize(async () => {
      await this.stopEverything();
      this.egress?.close();
      this.egress = undefined;
      rmSync(this.runtimeDir, { recursive: true, force: true });
      this.prepared = undefined;
      const user = this.desktopUser;
      if (user?.dedicated) removeChromiumTempFoldersOf(user.uid);
    });
  }

  private async stopEverything(): Promise<void> {
    this.stopping = true;
    try {
      await Promise.all([...this.screens.values()].map((screen) => screen.stop()));
      this.screens.clear();
      await stopProcesses(this.computerProcesses(), Math.min(this.stopGraceMs, 2_000));
      rmSync(this.readyMarker, { force: true });
    } finally {
      this.stopping = false;
      this.suspended = false;
    }
  }

  /** Every process of this computer found in the process table (see findDesktopProcesses). */
  private computerProcesses(): number[] {
    return findDesktopProcesses({ runtimeDir: this.runtimeDir, chromiumProfile: profileRootFor(this.homeDir) });
  }

  private checkSlot(slot: number): void {
    if (!Number.isInteger(slot) || slot < 0 || slot >= this.screenLimit) {
      throw new ScreenLimitError(`slot ${slot} is outside 0..${this.screenLimit - 1} (screen limit ${this.screenLimit})`);
    }
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.lifecycle.then(task, task);
    this.lifecycle = run.catch(() => undefined);
    return run;
  }

  /** Once per manager (again after a failure): the user, the directories, leftovers, the sandbox check. */
  private prepare(): Promise<ScreenContext> {
    if (!this.prepared) {
      this.prepared = this.prepareOnce();
      this.prepared.catch(() => (this.prepared = undefined));
    }
    return this.prepared;
  }

  private async prepareOnce(): Promise<ScreenContext> {
    const user = await resolveDesktopUser(this.userName, this.homeDir, { sharedHomes: this.sharedHomes });
    this.desktopUser = user;
    const runAs: RunAs | undefined = user.dedicated ? { uid: user.uid, gid: user.gid } : undefined;
    try {
      // A home that exists but belongs to someone else (restored from a backup, made by hand) becomes the user's.
      if (runAs && existsSync(this.homeDir)) chownTreeIfNeeded(this.homeDir, runAs);
      ensureOwnedDir(this.homeDir, runAs, 0o700);
      ensureOwnedDir(this.runtimeDir, runAs, 0o700);
      if (runAs) {
        assertReachableBy(this.homeDir, runAs, user.name);
        assertReachableBy(this.runtimeDir, runAs, user.name);
      }
    } catch (error) {
      if (error instanceof DesktopSetupError) throw error;
      throw new DesktopSetupError(`cannot prepare ${this.homeDir} / ${this.runtimeDir}: ${(error as Error).message}`);
    }
    const xdgRuntimeDir = path.join(this.runtimeDir, 'xdg');
    const logDir = path.join(this.runtimeDir, 'logs');
    ensureOwnedDir(xdgRuntimeDir, runAs, 0o700);
    ensureOwnedDir(logDir, runAs, 0o700);
    ensureX11SocketDir();

    // A worker that crashed leaves its desktop running; this runtime directory is ours now.
    const leftovers = this.computerProcesses();
    if (leftovers.length > 0) {
      this.log(`stopping ${leftovers.length} leftover process(es) of an earlier run: ${leftovers.join(', ')}`);
      await stopProcesses(leftovers, Math.min(this.stopGraceMs, 2_000));
    }

    const probeEnv = desktopEnv({
      userName: user.name,
      homeDir: this.homeDir,
      runtimeDir: this.runtimeDir,
      xdgRuntimeDir,
      slot: -1,
      display: '',
      xauthority: '',
    });
    const desktopSandbox =
      this.desktopSandbox &&
      desktopSandboxLayout({
        homeDir: this.homeDir,
        runtimeDir: this.runtimeDir,
        xdgRuntimeDir,
        hiddenDirs: this.desktopSandbox.hiddenDirs,
        proc: sandboxProcFor(runAs),
      });
    if (desktopSandbox) await assertSandboxBuilds(runAs, probeEnv, desktopSandbox);
    const sandbox = await probeChromiumSandbox(runAs, probeEnv, desktopSandbox);
    if (!sandbox.available) {
      this.log(`user namespaces are not available to ${user.name} (${sandbox.reason}): Chromium runs with --no-sandbox`);
    }
    if (runAs) {
      this.egress ??= new EgressProxy({
        policy: this.egressPolicy,
        onRefused: this.onEgressRefused,
        onSuppressed: (origin, count) => this.log(`egress refused ${count} more connection(s) of ${origin} in one second`),
      });
    } else {
      this.log('not running as root: the screens share the host network (no network island, no egress policy)');
    }
    return {
      user,
      runAs,
      homeDir: this.homeDir,
      runtimeDir: this.runtimeDir,
      xdgRuntimeDir,
      logDir,
      sandbox: sandbox.available,
      egress: this.egress,
      stopGraceMs: this.stopGraceMs,
      session: this.session,
      desktopSandbox: this.desktopSandbox,
      browserStateIntervalMs: this.browserStateIntervalMs,
      log: this.log,
    };
  }

  private onScreenStatus(screen: Screen): void {
    if (screen.slot !== 0 || this.screens.get(0) !== screen) return;
    const endpoints = screen.endpoints;
    if (endpoints) writeReadyMarker(this.readyMarker, endpoints);
    else rmSync(this.readyMarker, { force: true });
  }
}

/** The desktop's programs never run unsandboxed when a sandbox was asked for: a worker that cannot build one serves no screen. */
async function assertSandboxBuilds(runAs: RunAs | undefined, env: Record<string, string>, sandbox: SandboxLayout): Promise<void> {
  const check = await runCommand('true', [], { runAs, env, sandbox, timeoutMs: 15_000 }).catch((error: unknown) => ({
    code: null,
    stderr: (error as Error).message,
  }));
  if (check.code !== 0) {
    throw new DesktopSetupError(
      `the desktop's sandbox cannot be built (bubblewrap: ${check.stderr.trim() || `code ${check.code}`}); the worker ` +
        'needs unprivileged user namespaces and mounts inside them (see docs/architecture.md)',
    );
  }
}

/** Written to a temporary name and renamed, so a poller never reads half a file. */
function writeReadyMarker(file: string, endpoints: ScreenEndpoints): void {
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ ...endpoints, readyAt: new Date().toISOString() })}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/**
 * Xvfb running as an unprivileged user cannot create /tmp/.X11-unix, and without it only the abstract
 * socket exists, which a sandboxed shell (own network namespace) cannot reach.
 */
function ensureX11SocketDir(): void {
  const dir = '/tmp/.X11-unix';
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o1777);
}
