import { DesktopError } from '../display/errors.js';

/**
 * An element number from an older observation, or one whose window has changed since: acting on it could hit
 * whatever now sits there. The model must observe again.
 */
export class NativeStaleElementError extends DesktopError {
  override readonly name = 'NativeStaleElementError';
}

/** No element with that number in the latest observation. */
export class NativeElementNotFoundError extends DesktopError {
  override readonly name = 'NativeElementNotFoundError';
}

/** The action would land in Chromium's window: web content goes through the browser tool (CDP), never here. */
export class BrowserWindowError extends DesktopError {
  override readonly name = 'BrowserWindowError';
}

/** Coordinates outside the 1280×800 screen (or not integers). */
export class CoordinatesOutOfScreenError extends DesktopError {
  override readonly name = 'CoordinatesOutOfScreenError';
}

/** The action is malformed (unknown key name, empty text) or the application refused it. */
export class NativeActionError extends DesktopError {
  override readonly name = 'NativeActionError';
}

/** A helper (python3 with pyatspi, xdotool, ImageMagick) failed or timed out. */
export class NativeHelperError extends DesktopError {
  override readonly name = 'NativeHelperError';
}
