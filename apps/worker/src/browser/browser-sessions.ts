import { NumberedPage, type CdpPipe, type ObservedPage } from '@lazyboy/desktop';
// playwright-core is a dependency of @lazyboy/desktop, resolved from the workspace root here; apps/worker's
// package.json should list it too (reported, not added: package files belong to whoever owns them).
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { BrowserTab } from '@lazyboy/contracts';
import { WorkerHttpError } from '../http/errors.js';

const CONNECT_TIMEOUT_MS = 10_000;
/** A tab busy with a script does not hold up the search for the focused one for longer. */
const FOCUS_PROBE_MS = 1_000;

/**
 * One slot's Chromium, reached over its DevTools pipe. Connected once and reused; `close()` only disconnects (the
 * desktop's browser keeps running for the person watching it). The active tab is the one the agent acts
 * on: the first tab at first, then any tab that opens (a link with target=_blank, a popup, `tabs new`).
 */
export class BrowserSession {
  private active: Page | undefined;
  private readonly numbered = new WeakMap<Page, NumberedPage>();
  /** The observation number last handed out per tab: what the caller's element numbers refer to. */
  private readonly generations = new WeakMap<Page, number>();

  constructor(
    readonly pipe: CdpPipe,
    readonly browser: Browser,
    private readonly context: BrowserContext,
  ) {
    context.on('page', (page) => {
      this.active = page;
    });
  }

  get connected(): boolean {
    return this.browser.isConnected();
  }

  /** The tab the agent acts on, opening one if the person closed them all. */
  async activePage(): Promise<{ page: Page; numbered: NumberedPage }> {
    let page = this.active && !this.active.isClosed() ? this.active : this.openPages().at(0);
    if (!page) page = await this.context.newPage();
    this.active = page;
    let numbered = this.numbered.get(page);
    if (!numbered) {
      numbered = new NumberedPage(page);
      this.numbered.set(page, numbered);
    }
    return { page, numbered };
  }

  /** Observes the active tab and remembers which numbering the caller now holds. */
  async observe(): Promise<ObservedPage> {
    const { page, numbered } = await this.activePage();
    const observed = await numbered.observe();
    this.generations.set(page, observed.generation);
    return observed;
  }

  /**
   * Element numbers are only meaningful with the observation they came from. A caller that names it
   * (`generation`) is refused if the tab has been observed again since (by a read-only observer, or before
   * a takeover) instead of trusting that the numbering did not move.
   */
  assertGeneration(page: Page, generation: number | undefined): void {
    const latest = this.generations.get(page);
    if (generation !== undefined && generation !== latest) {
      throw new WorkerHttpError(
        'STALE_ELEMENT',
        `element numbers of observation ${generation} are out of date (latest ${latest ?? 'none'}): observe again`,
        { generation, latest },
      );
    }
  }

  async tabs(): Promise<BrowserTab[]> {
    const active = (await this.activePage()).page;
    return Promise.all(
      this.openPages().map(async (page, index) => ({
        index,
        url: page.url(),
        title: await page.title().catch(() => ''),
        active: page === active,
      })),
    );
  }

  /** The tab that has the keyboard focus, if the browser window has it (document.hasFocus). */
  async focusedPage(): Promise<Page | undefined> {
    for (const page of this.openPages()) {
      const focused = await Promise.race([
        // A string: the worker is compiled without the DOM's types.
        page.evaluate<boolean>('document.hasFocus()').catch(() => false),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), FOCUS_PROBE_MS)),
      ]);
      if (focused) return page;
    }
    return undefined;
  }

  /** Makes tab `index` the active one and brings it to the front, so the person watching sees it too. */
  async switchTo(index: number): Promise<void> {
    const page = this.tab(index);
    await page.bringToFront();
    this.active = page;
  }

  async open(url: string | undefined): Promise<void> {
    const page = await this.context.newPage();
    this.active = page;
    if (url) await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.bringToFront();
  }

  async close(index: number): Promise<void> {
    const page = this.tab(index);
    await page.close();
    if (this.active === page) {
      this.active = this.openPages().at(-1);
      await this.active?.bringToFront();
    }
  }

  async disconnect(): Promise<void> {
    await this.browser.close().catch(() => undefined);
  }

  private openPages(): Page[] {
    return this.context.pages().filter((page) => !page.isClosed());
  }

  private tab(index: number): Page {
    const page = this.openPages()[index];
    if (!page) throw new WorkerHttpError('BROWSER_ACTION_FAILED', `there is no tab ${index}; list the tabs first`);
    return page;
  }
}

/** Per slot one CDP client, replaced when the browser restarted (a new pipe) or the link dropped. */
export class BrowserSessions {
  private readonly sessions = new Map<number, BrowserSession>();

  async session(slot: number, pipe: CdpPipe): Promise<BrowserSession> {
    const current = this.sessions.get(slot);
    if (current && current.connected && current.pipe === pipe) return current;
    if (current) await this.forget(slot);
    let browser: Browser;
    try {
      browser = await chromium.connectOverCDP(await pipe.connect(), { timeout: CONNECT_TIMEOUT_MS });
    } catch (error) {
      throw new WorkerHttpError('BROWSER_UNAVAILABLE', `the browser of slot ${slot} does not answer CDP: ${firstLine(error)}`);
    }
    const context = browser.contexts()[0];
    if (!context) {
      await browser.close().catch(() => undefined);
      throw new WorkerHttpError('BROWSER_UNAVAILABLE', `the browser of slot ${slot} has no default context`);
    }
    const session = new BrowserSession(pipe, browser, context);
    this.sessions.set(slot, session);
    return session;
  }

  async forget(slot: number): Promise<void> {
    const session = this.sessions.get(slot);
    this.sessions.delete(slot);
    await session?.disconnect();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((slot) => this.forget(slot)));
  }
}

export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').slice(0, 500);
}
