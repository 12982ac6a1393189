import { WORKER_ERROR_STATUS, type WorkerErrorCode } from '@lazyboy/contracts';

/** An answer the worker gives on purpose: a stable code, its status from the contract, a message for people. */
export class WorkerHttpError extends Error {
  override readonly name = 'WorkerHttpError';
  readonly status: number;

  constructor(
    readonly code: WorkerErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.status = WORKER_ERROR_STATUS[code];
  }

  body(): { error: { code: WorkerErrorCode; message: string; details?: unknown } } {
    return {
      error: { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) },
    };
  }
}
