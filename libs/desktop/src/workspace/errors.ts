import { DesktopError } from '../display/errors.js';

/**
 * bubblewrap is missing or could not build the sandbox (no user namespaces, a refused mount). Commands are
 * never run without it: an unsandboxed shell would reach the worker's ports and other computers' files.
 */
export class SandboxUnavailableError extends DesktopError {
  override readonly name = 'SandboxUnavailableError';
}

/** No command with that id was started by this shell (or it has been forgotten). */
export class UnknownCommandError extends DesktopError {
  override readonly name = 'UnknownCommandError';
}

/** The path leaves the computer's home: `..`, an absolute path elsewhere, or a symlink pointing out. */
export class PathOutsideHomeError extends DesktopError {
  override readonly name = 'PathOutsideHomeError';
}

/** The path exists but is not what the operation needs (a directory to read, a file to list, …), or is missing. */
export class HomePathError extends DesktopError {
  override readonly name = 'HomePathError';
  constructor(
    message: string,
    readonly code: 'not-found' | 'not-a-file' | 'not-a-directory' | 'too-large' | 'not-readable',
  ) {
    super(message);
  }
}
