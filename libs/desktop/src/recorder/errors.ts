import { DesktopError } from '../display/errors.js';

/** start() while recording, stop() while not, or reuse of a one-shot recorder. */
export class RecorderStateError extends DesktopError {
  override readonly name = 'RecorderStateError';
}

/** The browser could not be reached or has no context to record in. */
export class RecorderAttachError extends DesktopError {
  override readonly name = 'RecorderAttachError';
}
