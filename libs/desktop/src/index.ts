export * from './display/screen-manager.js';
export * from './display/screen-types.js';
export * from './display/errors.js';
export { DEFAULT_SCREEN_LIMIT, MAX_SCREEN_LIMIT, screenLimitFromEnv } from './display/screen-limit.js';
export {
  displayNumberForSlot,
  displayLooksFree,
  findFreeDisplayBase,
  xLockFile,
  xSocketFile,
} from './display/display-numbers.js';
export { desktopUserName, type DesktopUser } from './display/desktop-user.js';
export { computerRuntimeDir, computerTempDirs, shellLogRoot } from './display/computer-paths.js';
export { findComputerProcesses, type ComputerScope } from './display/desktop-processes.js';
export { clearComputerLeftovers, type ClearedLeftovers } from './display/computer-leftovers.js';
export { CHROMIUM_QUIET_FLAGS, PRIVATE_HOME_DIR } from './display/chromium.js';
export { CdpPipe } from './browser/cdp-pipe.js';
export { EgressProxy, type EgressProxyOptions, type EgressRefusal } from './network/egress-proxy.js';
export { NetworkIsland } from './network/network-island.js';
export { classifyAddress, hostAddresses, type AddressClass } from './network/address-class.js';
export type { RunAs } from './process/run-as.js';
export { SCREEN_WIDTH, SCREEN_HEIGHT } from './display/screen.js';
export {
  NumberedPage,
  renderObservation,
  StaleElementError,
  ElementNotFoundError,
  ElementNotInteractableError,
  PageUnresponsiveError,
  MAX_EVAL_RESULT_CHARS,
  type ClickOptions,
  type EvalValue,
  type NumberedPageOptions,
  type PointerTarget,
} from './browser/numbered-page.js';
export { BrowserTabs, NoSuchTabError, type BrowserTabInfo } from './browser/browser-tabs.js';
export {
  performBrowserAction,
  browserFailureCode,
  type BrowserActionOutcome,
  type BrowserFailureCode,
} from './browser/browser-actions.js';
export { logSize, readLogSlice, logTailText, type LogSlice } from './workspace/command-log.js';
export type { ObservedElement, ObservedPage } from './browser/page-script.js';
export { NativeObserver, renderNativeObservation, type NativeObserverOptions } from './native/observer.js';
export { NativeActor } from './native/actor.js';
export { screenshot, screenSignature, thumbnailDifference, type Screenshot, type ScreenSignature } from './native/screenshot.js';
export type { NativeDisplay } from './native/helpers.js';
export {
  NativeStaleElementError,
  NativeElementNotFoundError,
  BrowserWindowError,
  CoordinatesOutOfScreenError,
  NativeActionError,
  NativeHelperError,
} from './native/errors.js';
export type {
  NativeAction,
  NativeActResult,
  NativeElement,
  NativeObservation,
  NativeWindow,
  MouseButton,
  Point,
  Rect,
} from './native/types.js';
export {
  SandboxedShell,
  type SandboxedShellOptions,
  type ShellRunOptions,
  type ShellResult,
  type ShellCommand,
  type ShellOutput,
} from './workspace/sandboxed-shell.js';
export {
  HomeFiles,
  type HomeFilesOptions,
  type HomeEntry,
  type HomeReadOptions,
  type HomeReadResult,
  type HomeWriteResult,
} from './workspace/home-files.js';
export { bwrapArguments, bwrapCommand, DEFAULT_HIDDEN_DIRS, type SandboxLayout } from './workspace/sandbox-args.js';
export type { DesktopSandboxOptions } from './display/desktop-sandbox.js';
export { SandboxUnavailableError, UnknownCommandError, PathOutsideHomeError, HomePathError } from './workspace/errors.js';
export { SkillRecorder, type SkillRecorderOptions, type RecorderProgress } from './recorder/skill-recorder.js';
export { displayFrameSource, type FrameSource } from './recorder/frames.js';
export { selectKeyFrames } from './recorder/key-frames.js';
export { renderRecording } from './recorder/render.js';
export { SECRET_AUTOCOMPLETE, SECRET_NAME_PATTERNS, namesSecret, scrubUrl } from './recorder/secret-fields.js';
export { RecorderStateError, RecorderAttachError } from './recorder/errors.js';
export type * from './recorder/types.js';
export type { DesktopSession } from './display/screen.js';
export { listPids, readCmdline, readEnviron, readProcStat, type ProcStat } from './process/proc-table.js';
export { loginSiteOf, mayFillLogin } from './vault/login-site.js';
export { fillLogin, LoginFillError, type LoginFillOptions, type LoginFillOutcome, type SavedLogin } from './vault/login-form.js';
export { SECRET_MARK_ATTRIBUTE, secretOnScreen } from './vault/secret-marks.js';
