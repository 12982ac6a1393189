import {
  browserFailureCode,
  performBrowserAction as perform,
  type BrowserActionOutcome,
  type BrowserTabs,
} from '@lazyboy/desktop';
import type { BrowserActionBody, BrowserActionName } from '@lazyboy/contracts';
import { WorkerHttpError } from '../http/errors.js';
import { firstLine } from './browser-sessions.js';

/** Does one browser action on the slot's active tab (NumberedPage's, through the shared dispatcher) as an HTTP answer. */
export async function performBrowserAction(
  name: BrowserActionName,
  request: BrowserActionBody,
  tabs: BrowserTabs,
): Promise<BrowserActionOutcome> {
  try {
    return await perform(tabs, name, request);
  } catch (error) {
    throw asHttpError(error);
  }
}

function asHttpError(error: unknown): unknown {
  if (error instanceof WorkerHttpError) return error;
  const code = browserFailureCode(error);
  const message = firstLine(error);
  return new WorkerHttpError(code, code === 'BROWSER_UNAVAILABLE' ? `the browser went away: ${message}` : message);
}
