import { COMPUTER_ERROR_HINTS, refusalOutcome as refusalText, type ToolContext, type ToolOutcome } from '@lazyboy/agent';
import type { WorkerRequest, WorkerResponse, WorkerRoute } from '@lazyboy/contracts';
import type { AcquiredScreen } from '../computers/run-screens.js';
import { WorkerCallError } from '../computers/worker-client.js';
import { ScreenLeaseLostError, type ScreenProvider } from './screen-provider.js';

/** What the model reads when its call met a person holding the screen; also the takeover question's prompt. */
export const TAKEOVER_PROMPT =
  'A person has taken over this screen; the run continues from the current screen when they release it.';

/** The reason of the `blocked` directive a lost execution lease ends the turn with. */
export const LEASE_LOST_REASON = 'screen lease lost';

/** The worker's answer, or the outcome the tool should hand back instead. */
export type WorkerAnswer<T> = { ok: true; value: T } | { ok: false; outcome: ToolOutcome };

export interface WorkerCallInput<R extends WorkerRoute> {
  /** The tool's name as the model sees it (goes into a takeover question). */
  tool: string;
  route: R;
  /** The request without slot and fence, which come from the acquired screen. */
  body: Omit<WorkerRequest<R>, 'slot' | 'fence'>;
  /** The HTTP deadline (calls that wait on purpose, like a wait or a shell command, need more than the default). */
  timeoutMs?: number;
}

/**
 * One fenced call to the run's worker. Everything the model can act on comes back as an outcome: the
 * worker's refusals as error results with a hint, a person's takeover as a `park` directive, a lost
 * execution lease as a `blocked` directive (and the provider is told). Only cancellation is thrown.
 */
export async function callWorker<R extends WorkerRoute>(
  screens: ScreenProvider,
  input: WorkerCallInput<R>,
  context: Pick<ToolContext, 'signal' | 'callId'>,
): Promise<WorkerAnswer<WorkerResponse<R>>> {
  let screen: AcquiredScreen;
  try {
    screen = await screens.get(context.signal);
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (error instanceof ScreenLeaseLostError) return { ok: false, outcome: leaseLost(screens, error) };
    return {
      ok: false,
      outcome: { content: `the computer is not available: ${firstLine(error)}. Try again in a moment.`, isError: true },
    };
  }
  try {
    const value = await screen.worker.call(
      input.route,
      { ...input.body, slot: screen.slot, fence: screen.fence } as WorkerRequest<R>,
      { signal: context.signal, ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }) },
    );
    return { ok: true, value };
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (!(error instanceof WorkerCallError)) throw error;
    return { ok: false, outcome: refusalOutcome(screens, screen, error, input.tool, context.callId) };
  }
}

/** A worker refusal as what the model (or the loop) should do about it. */
function refusalOutcome(
  screens: ScreenProvider,
  screen: AcquiredScreen,
  error: WorkerCallError,
  tool: string,
  callId: string,
): ToolOutcome {
  if (error.code === 'STALE_FENCE') {
    return leaseLost(
      screens,
      new ScreenLeaseLostError(`the worker refused fence ${screen.fence}: ${error.message}`, screen.fence),
    );
  }
  if (error.code === 'CONTROL_HELD_BY_USER') {
    return {
      content: TAKEOVER_PROMPT,
      directive: { kind: 'park', question: { callId, tool, kind: 'takeover', prompt: TAKEOVER_PROMPT } },
    };
  }
  if (error.code === 'BAD_RESPONSE') {
    return { content: `the computer gave an answer this tool does not understand (${tool})`, isError: true };
  }
  return refusalText(error.code, error.message, HINTS);
}

function leaseLost(screens: ScreenProvider, error: ScreenLeaseLostError): ToolOutcome {
  try {
    screens.onLeaseLost?.(error);
  } catch {
    // The executor's bookkeeping must not turn a clean stop into a tool failure.
  }
  return {
    content: 'Another run now controls this computer (the screen lease was lost); this run stops here.',
    isError: true,
    directive: { kind: 'blocked', reason: LEASE_LOST_REASON },
  };
}

/** What the model can do about each refusal; codes without an entry are self-explanatory. */
const HINTS: Partial<Record<WorkerCallError['code'], string>> = {
  ...COMPUTER_ERROR_HINTS,
  USE_BROWSER_TOOL: 'that is the browser window: use the browser tool for web pages',
  PROFILE_LOCKED: 'the browser profile is in use elsewhere; shell and files still work',
  SCREEN_NOT_RUNNING: 'the screen is not up; try again in a moment',
  COMPUTER_UNAVAILABLE: 'the computer is not available right now; try again in a moment',
  BROWSER_UNAVAILABLE: 'the browser is restarting; try again in a moment',
  SCREEN_BOOT_FAILED: 'the screen could not start; try again in a moment',
  UNREACHABLE: 'the computer did not answer; try again in a moment',
  COMPUTER_LOST: 'observe the screen before acting again: the next call runs on a fresh desktop',
  STALE_BINDER: 'the computer changed hands between API servers; try again',
  NATIVE_UNAVAILABLE: 'desktop control is not available on this computer; use the browser or the shell',
  SANDBOX_UNAVAILABLE: 'the shell is not available on this computer',
};

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
