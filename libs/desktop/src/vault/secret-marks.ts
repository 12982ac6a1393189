/// <reference lib="dom" />
import type { ElementHandle, Frame, Page } from 'playwright-core';

// A field that received a saved password or code carries a mark in the page, and nothing else is kept:
// no value, no copy. While a marked field shows its text (a code left in a text box after a failed submit,
// a password field some site made type=text), the model gets no screenshot of the page and the observation
// shows the field as "•••". The mark goes with the element: a new page, or the field removed, ends it.

/** The attribute that marks a filled secret field (page-script.ts's observation spells it out too: keep in step). */
export const SECRET_MARK_ATTRIBUTE = 'data-lazyboy-secret';

/** A page busy with a script answers slower than this: the screenshot is withheld rather than waited for. */
const PROBE_TIMEOUT_MS = 2_000;

export async function markSecretField(field: ElementHandle): Promise<void> {
  await field.evaluate((el, name) => (el as Element).setAttribute(name, ''), SECRET_MARK_ATTRIBUTE);
}

/**
 * Whether a marked field of the page is showing its text right now: still in the document, visible in
 * its frame's viewport, not type=password, not empty. A frame that does not answer in time counts as
 * showing one (fail closed); one that is gone (navigating, detached) does not.
 */
export async function secretOnScreen(page: Page): Promise<boolean> {
  const frames = page.frames();
  const answers = await Promise.all(frames.map((frame) => frameShowsSecret(frame)));
  return answers.some(Boolean);
}

async function frameShowsSecret(frame: Frame): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), PROBE_TIMEOUT_MS)));
  const probe = frame.evaluate(showsMarkedSecret, SECRET_MARK_ATTRIBUTE).catch(() => false);
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** In the frame: a marked field whose text a screenshot would show. */
function showsMarkedSecret(attribute: string): boolean {
  for (const el of Array.from(document.querySelectorAll(`[${attribute}]`))) {
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) continue;
    if ((el instanceof HTMLInputElement && el.type === 'password') || el.value === '') continue;
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) continue;
    if (rect.bottom <= 0 || rect.right <= 0 || rect.top >= innerHeight || rect.left >= innerWidth) continue;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    return true;
  }
  return false;
}
