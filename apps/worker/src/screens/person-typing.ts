import type { ScreenTypeResponse } from '@lazyboy/contracts';
import { runningBrowser } from '../browser/browser-routes.js';
import type { WorkerContext } from '../worker-context.js';
import { fromDesktopError } from './desktop-errors.js';

/**
 * Types a person's text (a paste, their phone keyboard's Chinese) into what has the focus on their screen.
 * Not through VNC: x11vnc types a character the keyboard lacks by mapping it onto a spare key, and runs out
 * of spare keys after some twenty distinct Chinese characters. Into the focused browser tab the text is
 * inserted over CDP, exactly as written; anywhere else xdotool types it, mapping one key at a time.
 */
export async function typeForPerson(ctx: WorkerContext, slot: number, text: string): Promise<ScreenTypeResponse> {
  const pipe = runningBrowser(ctx, slot);
  const focused = await ctx.workspace.actor.focusedWindow(slot).catch(() => undefined);
  // No window list (AT-SPI not up yet): the browser is the likeliest place, and it says whether it has the focus.
  if (focused === undefined || focused.browser) {
    const page = await (await ctx.browsers.session(slot, pipe)).tabs.focusedPage();
    if (page) {
      await page.keyboard.insertText(text);
      return { slot, via: 'browser' };
    }
  }
  await ctx.workspace.actor.typeForPerson(slot, text).catch((error: unknown) => {
    throw fromDesktopError(error);
  });
  return { slot, via: 'keys' };
}
