import {
  ComputerUnavailableError,
  DesktopError,
  ProfileInUseError,
  ProfileMismatchError,
  ScreenBootError,
  ScreenLimitError,
  ScreenNotRunningError,
} from '@lazyboy/desktop';
import { WorkerHttpError } from '../http/errors.js';

/** The display layer's typed errors as the worker's stable codes; anything else is passed on unchanged. */
export function fromDesktopError(error: unknown): unknown {
  if (!(error instanceof DesktopError)) {
    // startScreen checks its profile key with a RangeError; zod has already checked it, but stay safe.
    if (error instanceof RangeError) return new WorkerHttpError('VALIDATION_FAILED', error.message);
    return error;
  }
  if (error instanceof ProfileInUseError) {
    return new WorkerHttpError(
      'PROFILE_LOCKED',
      `profile locked: ${error.message}. The browser is unavailable to this agent until the other screen stops; files and shell still work.`,
    );
  }
  if (error instanceof ProfileMismatchError) return new WorkerHttpError('PROFILE_MISMATCH', error.message);
  if (error instanceof ScreenLimitError) return new WorkerHttpError('SCREEN_LIMIT', error.message);
  if (error instanceof ComputerUnavailableError) return new WorkerHttpError('COMPUTER_UNAVAILABLE', error.message);
  if (error instanceof ScreenNotRunningError) return new WorkerHttpError('SCREEN_NOT_RUNNING', error.message);
  if (error instanceof ScreenBootError) return new WorkerHttpError('SCREEN_BOOT_FAILED', error.message);
  return new WorkerHttpError('SCREEN_BOOT_FAILED', `${error.name}: ${error.message}`);
}
