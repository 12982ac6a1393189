import type { Page, Request } from 'playwright-core';

const NAVIGATION_START_MS = 30;
const NAVIGATION_TIMEOUT_MS = 15_000;

/**
 * Runs an input that may navigate (Enter in a form); if the main frame starts loading a new document,
 * waits until it is parsed so the observation that follows sees the new page, not the old one.
 */
export async function followingNavigation(page: Page, action: () => Promise<void>): Promise<void> {
  let navigating = false;
  let loaded: () => void = () => undefined;
  const newDocument = new Promise<void>((resolve) => (loaded = resolve));
  const onRequest = (request: Request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) navigating = true;
  };
  page.on('request', onRequest);
  page.on('domcontentloaded', loaded);
  try {
    await action();
    // Handlers that navigate do so within a task or two of the event.
    await new Promise((r) => setTimeout(r, NAVIGATION_START_MS));
    if (navigating) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([newDocument, new Promise((r) => (timer = setTimeout(r, NAVIGATION_TIMEOUT_MS)))]);
      clearTimeout(timer);
    }
  } finally {
    page.off('request', onRequest);
    page.off('domcontentloaded', loaded);
  }
}

/**
 * Smooth scrolling keeps moving after the wheel event; observe only once the position holds still. (The
 * expression is a string because the worker is compiled without the DOM library.)
 */
export async function scrollSettled(page: Page): Promise<void> {
  let last = -1;
  for (let i = 0; i < 20; i += 1) {
    const y = await page.evaluate<number>('window.scrollY');
    if (y === last) return;
    last = y;
    await new Promise((r) => setTimeout(r, 50));
  }
}
