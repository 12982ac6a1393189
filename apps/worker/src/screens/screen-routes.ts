import {
  type ComputerStateResponse,
  type ControlChangeResponse,
  type ScreenInfo,
  type ScreensResponse,
  workerRoutes,
} from '@lazyboy/contracts';
import { WorkerHttpError } from '../http/errors.js';
import type { Router } from '../http/router.js';
import type { WorkerContext } from '../worker-context.js';
import { fromDesktopError } from './desktop-errors.js';
import { typeForPerson } from './person-typing.js';

export function addScreenRoutes(router: Router, ctx: WorkerContext): void {
  const { screens, fences } = ctx;

  /** Boots the slot's screen if needed and answers once Chromium, VNC and websockify are up. */
  router.serve(workerRoutes.ensureScreen, async ({ body: { slot, profileKey, fence } }) => {
    if (fence !== undefined && fences.admitExecution(slot, fence)) ctx.screenshots.reset(slot);
    try {
      await screens.ensureScreen(slot, { profileKey });
    } catch (raw) {
      const error = fromDesktopError(raw);
      if (error instanceof WorkerHttpError && error.code === 'PROFILE_LOCKED') {
        ctx.profileLocks.record(slot, error.message);
        throw new WorkerHttpError(error.code, error.message, { slot, profileKey });
      }
      throw error;
    }
    ctx.profileLocks.clear(slot);
    return screenInfo(ctx, slot);
  });

  router.serve(workerRoutes.listScreens, async () => {
    const slots = new Set([...screens.health().screens.map((s) => s.slot), ...fences.knownSlots()]);
    const body: ScreensResponse = {
      computerId: ctx.computerId,
      suspended: screens.isSuspended,
      screenLimit: screens.screenLimit,
      screens: [...slots].sort((a, b) => a - b).map((slot) => screenInfo(ctx, slot)),
    };
    return body;
  });

  router.serve(workerRoutes.stopScreen, async ({ body: { slot } }) => {
    await ctx.workspace.stopRecorder(slot);
    await ctx.browsers.forget(slot);
    await screens.stopScreen(slot).catch((error: unknown) => {
      throw fromDesktopError(error);
    });
    ctx.profileLocks.clear(slot);
    ctx.screenshots.reset(slot);
    return screenInfo(ctx, slot);
  });

  /**
   * Takeover / release. Answered at once, not queued behind the agent's call in flight: that call
   * finishes (input cannot be taken back half-way) and the agent's next one is refused.
   */
  router.serve(workerRoutes.setControl, async ({ body: { slot, holder, fence } }) => {
    const body: ControlChangeResponse = { slot, control: fences.setControl(slot, holder, fence) };
    return body;
  });

  /** A person's typing, while they hold the screen (their control fence); never queued behind the agent. */
  router.serve(workerRoutes.personType, async ({ body: { slot, fence, text } }) => {
    fences.assertPersonHolds(slot, fence);
    return await typeForPerson(ctx, slot, text);
  });

  router.serve(workerRoutes.suspend, async () => {
    // A recorder polling a frozen display would hang; its recording is dropped.
    await ctx.workspace.stopRecorders();
    await screens.suspend().catch((error: unknown) => {
      throw fromDesktopError(error);
    });
    return computerState(ctx);
  });

  router.serve(workerRoutes.wake, async () => {
    await screens.wake().catch((error: unknown) => {
      throw fromDesktopError(error);
    });
    return computerState(ctx);
  });
}

function computerState(ctx: WorkerContext): ComputerStateResponse {
  return { computerId: ctx.computerId, suspended: ctx.screens.isSuspended };
}

/** A slot as the API may see it: no X cookie, no D-Bus address, no sockets (only the worker drives the browser). */
function screenInfo(ctx: WorkerContext, slot: number): ScreenInfo {
  const status = ctx.screens.state(slot);
  const health = ctx.screens.health().screens.find((s) => s.slot === slot);
  const endpoints = ctx.screens.endpoints(slot);
  const executionFence = ctx.fences.executionFence(slot);
  return {
    slot,
    state: status.state,
    ...(status.state === 'error' ? { error: status.error } : {}),
    ...(health ? { profileKey: health.profileKey } : {}),
    ...(endpoints ? { endpoints: { display: endpoints.display } } : {}),
    ...(executionFence === undefined ? {} : { executionFence }),
    control: ctx.fences.control(slot),
  };
}
