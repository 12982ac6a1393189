import {
  browserActionNames,
  browserRoutes,
  isReadOnlyBrowserAction,
  type BrowserActionName,
  type BrowserActionRequest,
  type BrowserActionResponse,
} from '@lazyboy/contracts';
import { renderObservation, type CdpPipe } from '@lazyboy/desktop';
import { WorkerHttpError } from '../http/errors.js';
import type { Router } from '../http/router.js';
import type { WorkerContext } from '../worker-context.js';
import { performBrowserAction } from './browser-actions.js';
import { SCREENSHOT_WITHHELD_NOTE } from './screenshots.js';

/**
 * `POST /browser/<action>`: the order of the checks is the contract. Validation first (a bad body does
 * nothing, not even advance a fence); then the execution fence (stale → 409, nothing done; newer → it
 * becomes the newest at once); then the control holder (a person holding the screen → 423 for anything
 * but read-only calls). The call then waits for its turn on the slot and checks fence and holder again,
 * since either may have changed while it waited.
 */
export function addBrowserRoutes(router: Router, ctx: WorkerContext): void {
  for (const action of browserActionNames) {
    router.serve(browserRoutes[action], ({ body }) => act(ctx, action, body as BrowserActionRequest));
  }
}

async function act(ctx: WorkerContext, action: BrowserActionName, request: BrowserActionRequest): Promise<BrowserActionResponse> {
  const { slot, fence } = request;
  const readOnly = isReadOnlyBrowserAction(action, request as { op?: string });

  // A new run has seen no screenshot yet, whatever its predecessor was sent.
  if (ctx.fences.admitExecution(slot, fence)) ctx.screenshots.reset(slot);
  if (!readOnly) ctx.fences.assertAgentMayAct(slot, action);

  const body = await ctx.queue.run(slot, async (): Promise<BrowserActionResponse> => {
    ctx.fences.assertCurrentExecution(slot, fence);
    if (!readOnly) ctx.fences.assertAgentMayAct(slot, action);
    const session = await ctx.browsers.session(slot, runningBrowser(ctx, slot));
    let outcome;
    try {
      outcome = await performBrowserAction(action, request, session.tabs);
    } catch (error) {
      if (error instanceof WorkerHttpError && error.code === 'BROWSER_UNAVAILABLE') await ctx.browsers.forget(slot);
      throw error;
    }
    const { page } = await session.tabs.activePage();
    const mode = action === 'observe' && 'screenshot' in request && request.screenshot === 'always' ? 'always' : 'auto';
    const { screenshot, withheld } = await ctx.screenshots.capture(slot, page, outcome.observed.elements, mode);
    const observation = renderObservation(outcome.observed);
    return {
      slot,
      action,
      url: outcome.observed.url,
      title: outcome.observed.title,
      generation: outcome.observed.generation,
      observation: withheld ? `${observation}\n\n${SCREENSHOT_WITHHELD_NOTE}` : observation,
      screenshot,
      ...(outcome.result === undefined ? {} : { result: outcome.result }),
      ...(outcome.tabs ? { tabs: outcome.tabs } : {}),
      control: ctx.fences.control(slot).holder,
    };
  });
  return body;
}

/** The slot's DevTools pipe if its screen is up; otherwise the reason the browser cannot be used. */
export function runningBrowser(ctx: WorkerContext, slot: number): CdpPipe {
  // A frozen Chromium would leave the call hanging until the wake, so refuse at once.
  if (ctx.screens.isSuspended) {
    throw new WorkerHttpError('COMPUTER_UNAVAILABLE', `computer ${ctx.computerId} is suspended; wake it first`);
  }
  const status = ctx.screens.state(slot);
  if (status.state === 'running') {
    try {
      return ctx.screens.cdp(slot);
    } catch (error) {
      throw new WorkerHttpError('BROWSER_UNAVAILABLE', `the browser of slot ${slot} is not running: ${(error as Error).message}`);
    }
  }
  const locked = ctx.profileLocks.message(slot);
  if (locked) throw new WorkerHttpError('PROFILE_LOCKED', locked, { slot });
  const why = status.state === 'error' ? `failed: ${status.error}` : `is ${status.state}`;
  throw new WorkerHttpError('SCREEN_NOT_RUNNING', `the screen of slot ${slot} ${why}; ensure it first`, {
    slot,
    state: status.state,
  });
}
