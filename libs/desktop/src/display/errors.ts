/** Every error the display layer raises on purpose; `name` tells them apart. */
export class DesktopError extends Error {
  override readonly name: string = 'DesktopError';
}

/** A slot outside 0..limit-1. */
export class ScreenLimitError extends DesktopError {
  override readonly name = 'ScreenLimitError';
}

/** Two screens cannot share a Chromium profile: the second Chromium would hand its window to the first. */
export class ProfileInUseError extends DesktopError {
  override readonly name = 'ProfileInUseError';
}

/** The slot runs with another profile; stop it first to switch. */
export class ProfileMismatchError extends DesktopError {
  override readonly name = 'ProfileMismatchError';
}

/** Another X server (not this computer's) holds the display number. */
export class DisplayInUseError extends DesktopError {
  override readonly name = 'DisplayInUseError';
}

/** New screens are refused while the computer is suspended or stopping; wake or wait first. */
export class ComputerUnavailableError extends DesktopError {
  override readonly name = 'ComputerUnavailableError';
}

/** The screen was never started, or has been stopped. */
export class ScreenNotRunningError extends DesktopError {
  override readonly name = 'ScreenNotRunningError';
}

/** A screen failed to come up; the message names the step and the process's last log lines. */
export class ScreenBootError extends DesktopError {
  override readonly name = 'ScreenBootError';
}

/** The computer's user, home or runtime directory could not be prepared. */
export class DesktopSetupError extends DesktopError {
  override readonly name = 'DesktopSetupError';
}

/** The screen's Chromium does not answer over its DevTools pipe (closed, frozen, or gone). */
export class BrowserUnreachableError extends DesktopError {
  override readonly name = 'BrowserUnreachableError';
}

/**
 * The browser state saved in a profile (its tabs and cookies, see browser/browser-state-file.ts) cannot be
 * read or written: missing parts, not JSON, too large, or not a plain file of the profile. A screen then
 * starts clean; it never fails its boot for it.
 */
export class BrowserStateError extends DesktopError {
  override readonly name = 'BrowserStateError';
}
