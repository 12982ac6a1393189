import type { BrowserContext, Page } from 'playwright-core';
import { NumberedPage } from './numbered-page.js';
import type { ObservedPage } from './page-script.js';

/** A focus probe of a tab busy with a script does not hold up the search for the focused one for longer. */
const FOCUS_PROBE_MS = 1_000;

export interface BrowserTabInfo {
  index: number;
  url: string;
  title: string;
  active: boolean;
}

/** `tabs switch|close` named a tab that is not open. */
export class NoSuchTabError extends Error {
  override readonly name = 'NoSuchTabError';
}

/**
 * The tabs of one browser context as the agent uses them: the active tab is the one it acts on (the
 * first at first, then any tab that opens: a link with target=_blank, a popup, `tabs new`), each tab
 * with its own NumberedPage. The worker keeps one per screen, the CLI one for its local Chromium.
 */
export class BrowserTabs {
  private active: Page | undefined;
  /** Whether the tab in front when this object met the browser has been looked for (once). */
  private frontFound = false;
  private readonly numbered = new WeakMap<Page, NumberedPage>();

  constructor(private readonly context: BrowserContext) {
    context.on('page', (page) => {
      this.active = page;
    });
  }

  /** The tab the agent acts on, opening one if the person closed them all. */
  async activePage(): Promise<{ page: Page; numbered: NumberedPage }> {
    let page = this.active && !this.active.isClosed() ? this.active : undefined;
    // A browser met with several tabs (its tabs restored at launch, or a person's) is acted on where its
    // screen shows it, not in whichever tab the connection happened to list first.
    if (!page && !this.frontFound) page = await this.frontPage();
    this.frontFound = true;
    page ??= this.openPages().at(0) ?? (await this.context.newPage());
    this.active = page;
    let numbered = this.numbered.get(page);
    if (!numbered) {
      numbered = new NumberedPage(page);
      this.numbered.set(page, numbered);
    }
    return { page, numbered };
  }

  /** Observes the active tab. */
  async observe(): Promise<ObservedPage> {
    return (await this.activePage()).numbered.observe();
  }

  async list(): Promise<BrowserTabInfo[]> {
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
        page.evaluate<boolean>('document.hasFocus()').catch(() => false),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), FOCUS_PROBE_MS)),
      ]);
      if (focused) return page;
    }
    return undefined;
  }

  /**
   * The tab in front of the browser's window, when there is more than one to choose from. Chromium says
   * which (the `tabActive` of its tab targets); the pages cannot (playwright-core emulates focus and
   * visibility for every page it attaches to). Matched by URL; none when the browser cannot tell.
   */
  private async frontPage(): Promise<Page | undefined> {
    const pages = this.openPages();
    if (pages.length < 2) return pages[0];
    const session = await this.context
      .browser()
      ?.newBrowserCDPSession()
      .catch(() => undefined);
    if (!session) return undefined;
    try {
      const { targetInfos } = await session.send('Target.getTargets', { filter: [{ type: 'tab' }] });
      const front = targetInfos.find((tab) => (tab.embedderData as Record<string, unknown> | undefined)?.['tabActive'] === true);
      return front ? pages.find((page) => page.url() === front.url) : undefined;
    } catch {
      return undefined;
    } finally {
      await session.detach().catch(() => undefined);
    }
  }

  /** Makes tab `index` the active one and brings it to the front, so a person watching sees it too. */
  async switchTo(index: number): Promise<void> {
    const page = this.tab(index);
    await page.bringToFront();
    this.active = page;
  }

  async open(url: string | undefined): Promise<void> {
    const page = await this.context.newPage();
    this.active = page;
    if (url) await this.activePage().then(({ numbered }) => numbered.navigate(url));
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

  private openPages(): Page[] {
    return this.context.pages().filter((page) => !page.isClosed());
  }

  private tab(index: number): Page {
    const page = this.openPages()[index];
    if (!page) throw new NoSuchTabError(`there is no tab ${index}; list the tabs first`);
    return page;
  }
}
