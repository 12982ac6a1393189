import { workerRoutes, type LoginFillRequest, type LoginFillResponse } from '@lazyboy/contracts';
import { fillLogin, LoginFillError, type SavedLogin } from '@lazyboy/desktop';
import { WorkerHttpError } from '../http/errors.js';
import type { Router } from '../http/router.js';
import type { WorkerContext } from '../worker-context.js';
import { runningBrowser } from './browser-routes.js';

/** How the refusal of a person's hold names this call (never its values). */
const ACTION = 'saved login fill';

/**
 * `POST /vault/fill`: a saved login typed into the slot's active tab. The same order of checks as the
 * browser routes — validation (the router's), the execution fence (stale → 409, nothing typed), the
 * control holder (a person holding the screen → 423) — and both again in the slot's turn, where the
 * site check and the typing happen with no other call of the slot in between. The request is the only
 * place the values live: nothing here logs, keeps or answers them.
 */
export function addLoginFillRoutes(router: Router, ctx: WorkerContext): void {
  router.serve(workerRoutes.loginFill, ({ body }) => fill(ctx, body));
}

async function fill(ctx: WorkerContext, request: LoginFillRequest): Promise<LoginFillResponse> {
  const { slot, fence } = request;
  // A new run has seen no screenshot yet, whatever its predecessor was sent.
  if (ctx.fences.admitExecution(slot, fence)) ctx.screenshots.reset(slot);
  ctx.fences.assertAgentMayAct(slot, ACTION);

  return ctx.queue.run(slot, async (): Promise<LoginFillResponse> => {
    ctx.fences.assertCurrentExecution(slot, fence);
    ctx.fences.assertAgentMayAct(slot, ACTION);
    const session = await ctx.browsers.session(slot, runningBrowser(ctx, slot));
    try {
      const { page } = await session.tabs.activePage();
      return { slot, ...(await fillLogin(page, savedLogin(request))) };
    } catch (error) {
      if (error instanceof WorkerHttpError) throw error;
      const gone = error instanceof LoginFillError ? error.browserGone : true;
      if (gone) await ctx.browsers.forget(slot);
      // LoginFillError's message is scrubbed of the values; anything else is not repeated at all.
      const message = error instanceof LoginFillError ? error.message : 'the browser failed during the fill';
      throw new WorkerHttpError(
        gone ? 'BROWSER_UNAVAILABLE' : 'BROWSER_ACTION_FAILED',
        `the saved login was not filled: ${message}`,
      );
    }
  });
}

/** The login without the envelope: what goes into the page. */
function savedLogin(request: LoginFillRequest): SavedLogin {
  if (request.step === 'totp') return { step: 'totp', site: request.site, code: request.code };
  return { step: 'password', site: request.site, username: request.username, password: request.password };
}
