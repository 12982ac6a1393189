import type { CDPSession, Page } from 'playwright-core';

/** How long a rescue command may take: it must not become the next thing that hangs. */
const RESCUE_TIMEOUT_MS = 5_000;

/**
 * One tab's own CDP session, for what Playwright does not offer: the DevTools command line (the
 * pointer-listener scan) and rescuing a stuck page (stopping a load that never ends, ending a script
 * that never gives the page back). Opened on first use; a browser without CDP (not Chromium) has none.
 */
export class TabCdp {
  private session: Promise<CDPSession | null> | undefined;

  constructor(private readonly page: Page) {}

  /** The session, or null when the browser has no CDP. */
  open(): Promise<CDPSession | null> {
    this.session ??= this.page
      .context()
      .newCDPSession(this.page)
      .catch(() => null);
    return this.session;
  }

  /**
   * Gives the page back: a navigation still waiting for its server is stopped, and a script that keeps
   * the page's only thread busy is ended (terminateExecution is served off that thread, so it gets through
   * where an evaluation cannot). Each step is bounded; what fails here leaves the tab as it was.
   */
  async rescue(): Promise<void> {
    const session = await this.open();
    if (!session) return;
    const bounded = (method: 'Page.stopLoading' | 'Runtime.terminateExecution') =>
      Promise.race([
        session.send(method).catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, RESCUE_TIMEOUT_MS).unref()),
      ]);
    await bounded('Runtime.terminateExecution');
    await bounded('Page.stopLoading');
  }
}
