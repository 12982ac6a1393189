import { rmSync } from 'node:fs';
import path from 'node:path';
import {
  BrowserWindowError,
  CoordinatesOutOfScreenError,
  DesktopError,
  HomeFiles,
  HomePathError,
  NativeActionError,
  NativeActor,
  NativeElementNotFoundError,
  NativeHelperError,
  NativeObserver,
  NativeStaleElementError,
  PathOutsideHomeError,
  RecorderAttachError,
  RecorderStateError,
  SandboxedShell,
  SandboxUnavailableError,
  shellLogRoot,
  UnknownCommandError,
  type ScreenManager,
  type SkillRecorder,
} from '@lazyboy/desktop';
import { WorkerHttpError } from '../http/errors.js';
import { fromDesktopError } from '../screens/desktop-errors.js';

/**
 * The agent's non-browser tools on one computer: a sandboxed shell per slot (its display is the slot's
 * screen), the home's files, the native (AT-SPI) observer and actor, and one recorder per slot. Created
 * lazily: the computer's user is only known once its first screen has booted.
 */
export class Workspace {
  readonly observer: NativeObserver;
  readonly actor: NativeActor;
  private readonly shells = new Map<number, SandboxedShell>();
  private homeFiles: HomeFiles | undefined;
  private readonly recorders = new Map<number, SkillRecorder>();

  constructor(
    private readonly screens: ScreenManager,
    private readonly options: { shellBoundary?: 'bubblewrap' | 'container' } = {},
  ) {
    this.observer = new NativeObserver(screens);
    this.actor = new NativeActor(screens, this.observer);
  }

  /** Worker-owned, outside the home (a sibling of the runtime directory), so the sandbox cannot reach it. */
  get logRoot(): string {
    return shellLogRoot(this.screens.runtimeDir);
  }

  shell(slot: number): SandboxedShell {
    let shell = this.shells.get(slot);
    if (!shell) {
      const screens = this.screens;
      shell = new SandboxedShell({
        user: this.user(),
        homeDir: screens.homeDir,
        logDir: path.join(this.logRoot, `slot-${slot}`),
        displayEnv: () => screens.clientEnv(slot),
        displayRunAs: () => screens.clientRunAs(slot),
        // The worker's data directory holds the other computers' homes.
        hiddenDirs: [path.dirname(screens.homeDir), this.logRoot],
        boundary: this.options.shellBoundary ?? 'bubblewrap',
      });
      this.shells.set(slot, shell);
    }
    return shell;
  }

  files(): HomeFiles {
    if (!this.homeFiles) {
      const user = this.user();
      this.homeFiles = new HomeFiles({
        homeDir: this.screens.homeDir,
        owner: user.dedicated ? { uid: user.uid, gid: user.gid } : undefined,
      });
    }
    return this.homeFiles;
  }

  recorder(slot: number): SkillRecorder | undefined {
    return this.recorders.get(slot);
  }

  setRecorder(slot: number, recorder: SkillRecorder | undefined): void {
    if (recorder) this.recorders.set(slot, recorder);
    else this.recorders.delete(slot);
  }

  /** Ends the slot's recording (its result is dropped): before its screen stops or the computer suspends. */
  async stopRecorder(slot: number): Promise<void> {
    const recorder = this.recorders.get(slot);
    this.recorders.delete(slot);
    if (recorder?.recording) await recorder.stop().catch(() => undefined);
  }

  async stopRecorders(): Promise<void> {
    await Promise.all([...this.recorders.keys()].map((slot) => this.stopRecorder(slot)));
  }

  /** Ends recordings and every shell command, and removes the shell logs: for a worker going away. */
  async close(): Promise<void> {
    await this.stopRecorders();
    await Promise.all([...this.shells.values()].map((shell) => shell.stopAll()));
    this.shells.clear();
    // Outside the home and worker-owned: nothing else would ever remove them, and each boot is a new worker.
    rmSync(this.logRoot, { recursive: true, force: true });
  }

  private user(): NonNullable<ScreenManager['user']> {
    const user = this.screens.user;
    if (!user) {
      throw new WorkerHttpError(
        'SCREEN_NOT_RUNNING',
        'the computer has not been prepared yet (no screen has booted); ensure a screen first',
      );
    }
    return user;
  }
}

/** The workspace's typed errors as the worker's stable codes; anything else goes to fromDesktopError. */
export function fromWorkspaceError(error: unknown): unknown {
  if (!(error instanceof DesktopError)) return fromDesktopError(error);
  if (error instanceof PathOutsideHomeError) return new WorkerHttpError('PATH_OUTSIDE_HOME', error.message);
  if (error instanceof HomePathError) {
    const codes = {
      'not-found': 'FILE_NOT_FOUND',
      'not-a-file': 'NOT_A_FILE',
      'not-a-directory': 'NOT_A_DIRECTORY',
      'too-large': 'FILE_TOO_LARGE',
      'not-readable': 'FILE_NOT_READABLE',
    } as const;
    return new WorkerHttpError(codes[error.code], error.message);
  }
  if (error instanceof SandboxUnavailableError) return new WorkerHttpError('SANDBOX_UNAVAILABLE', error.message);
  if (error instanceof UnknownCommandError) return new WorkerHttpError('UNKNOWN_COMMAND', error.message);
  if (error instanceof BrowserWindowError) {
    return new WorkerHttpError('USE_BROWSER_TOOL', `${error.message}; use the browser tool for the browser window`);
  }
  if (error instanceof NativeStaleElementError) return new WorkerHttpError('STALE_ELEMENT', error.message);
  if (error instanceof NativeElementNotFoundError) return new WorkerHttpError('ELEMENT_NOT_FOUND', error.message);
  if (error instanceof CoordinatesOutOfScreenError || error instanceof NativeActionError) {
    return new WorkerHttpError('NATIVE_ACTION_FAILED', error.message);
  }
  if (error instanceof NativeHelperError) return new WorkerHttpError('NATIVE_UNAVAILABLE', error.message);
  if (error instanceof RecorderStateError) return new WorkerHttpError('ALREADY_RECORDING', error.message);
  if (error instanceof RecorderAttachError) return new WorkerHttpError('RECORDER_UNAVAILABLE', error.message);
  return fromDesktopError(error);
}

/** Runs `task`, answering the workspace's errors with their codes. */
export async function mapped<T>(task: () => T | Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw fromWorkspaceError(error);
  }
}
