import type { Frame, Page, Request } from 'playwright-core';

/** How long the network must be still before a submitted page counts as settled. */
const QUIET_MS = 400;
/**
 * The same once a new top document has fired `load`: its own requests are done, and only what its scripts
 * fetch right after could still change it. The longer wait is for the start, when a submit's navigation or
 * fetch may not have begun yet.
 */
const QUIET_AFTER_LOAD_MS = 150;
/** A request open longer than this (a long poll, an event stream) no longer holds the page up. */
const LONG_REQUEST_MS = 3_000;
/** After a new document was committed, how long its `load` may still be waited for within the bound. */
const LOAD_GRACE_MS = 2_000;

export interface SettleResult {
  /** Whether the top document was replaced (a form post, a redirect, a script's `location = …`). */
  navigated: boolean;
}

/**
 * Runs `submit` and waits for what it started to finish: a navigation of the top document, the requests
 * of a script that signs in with fetch, or nothing at all — whichever way, until no request has started
 * or ended for QUIET_MS, bounded by `maxMs`. A login's answer is a page change on the network, not a
 * fixed time: this waits as long as the site takes and no longer.
 */
export async function settleAfter(page: Page, submit: () => Promise<void>, maxMs: number): Promise<SettleResult> {
  const watch = new NetworkWatch(page);
  try {
    const deadline = Date.now() + maxMs;
    await submit();
    watch.touch();
    await watch.quiet(deadline);
    if (watch.navigated) {
      const grace = Math.min(LOAD_GRACE_MS, deadline - Date.now());
      if (grace > 0) await page.waitForLoadState('load', { timeout: grace }).catch(() => undefined);
    }
    return { navigated: watch.navigated };
  } finally {
    watch.stop();
  }
}

/** The page's requests (every frame's) and top-level navigations since it was made. */
class NetworkWatch {
  navigated = false;
  /** A new top document has fired `load` since the submit. */
  private loaded = false;
  private readonly open = new Map<Request, number>();
  private lastActivity = Date.now();
  private wake: (() => void) | undefined;

  private readonly onRequest = (request: Request) => {
    this.open.set(request, Date.now());
    this.touch();
  };
  private readonly onDone = (request: Request) => {
    this.open.delete(request);
    this.touch();
  };
  private readonly onNavigated = (frame: Frame) => {
    if (frame !== this.page.mainFrame()) return;
    this.navigated = true;
    this.loaded = false;
    this.touch();
  };
  private readonly onLoad = () => {
    if (!this.navigated) return;
    this.loaded = true;
    this.touch();
  };

  constructor(private readonly page: Page) {
    page.on('request', this.onRequest);
    page.on('requestfinished', this.onDone);
    page.on('requestfailed', this.onDone);
    page.on('framenavigated', this.onNavigated);
    page.on('load', this.onLoad);
  }

  touch(): void {
    this.lastActivity = Date.now();
    this.wake?.();
  }

  /** Resolves once nothing but long-open requests is in flight and nothing happened for a quiet period, or at `deadline`. */
  async quiet(deadline: number): Promise<void> {
    for (;;) {
      const now = Date.now();
      if (now >= deadline) return;
      const pending = [...this.open.values()].filter((since) => now - since < LONG_REQUEST_MS);
      const quietAt = this.lastActivity + (this.loaded ? QUIET_AFTER_LOAD_MS : QUIET_MS);
      if (pending.length === 0 && now >= quietAt) return;
      // Look again when the quiet period could be over, a pending request turns long, or anything happens.
      const next = Math.min(deadline, pending.length === 0 ? quietAt : Math.min(...pending) + LONG_REQUEST_MS);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(next - now, 10));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = undefined;
    }
  }

  stop(): void {
    this.page.off('request', this.onRequest);
    this.page.off('requestfinished', this.onDone);
    this.page.off('requestfailed', this.onDone);
    this.page.off('framenavigated', this.onNavigated);
    this.page.off('load', this.onLoad);
    this.wake?.();
  }
}
