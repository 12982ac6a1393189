import { mkdirSync } from 'node:fs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_QUIET_FLAGS, NumberedPage } from '@lazyboy/desktop';

export class BrowserUnavailableError extends Error {
  override readonly name = 'BrowserUnavailableError';
}

export interface LocalBrowserOptions {
  /** Debian's Chromium; never a downloaded browser. */
  executablePath: string;
  /** A persistent profile (cookies survive restarts and the headless ↔ headed switch). */
  profileDir: string;
  headed: boolean;
  env?: NodeJS.ProcessEnv;
}

/**
 * The CLI's optional browser: Debian's Chromium through playwright-core, launched on first use with a
 * persistent profile. Fail-closed: when it cannot start, tools get a clear error, nothing pretends.
 */
export class LocalBrowser {
  private context: BrowserContext | undefined;
  private numbered: NumberedPage | undefined;
  private headedNow: boolean;

  constructor(private readonly options: LocalBrowserOptions) {
    this.headedNow = options.headed;
  }

  get headed(): boolean {
    return this.headedNow;
  }

  async page(): Promise<NumberedPage> {
    if (this.numbered && !this.numbered.page.isClosed()) return this.numbered;
    const context = await this.launch(this.headedNow);
    const page: Page = context.pages()[0] ?? (await context.newPage());
    this.numbered = new NumberedPage(page);
    return this.numbered;
  }

  /** Makes the browser visible for a person: a headless one is relaunched headed on the same page. */
  async makeHeaded(): Promise<void> {
    if (this.headedNow && this.context) return;
    const url = this.numbered && !this.numbered.page.isClosed() ? this.numbered.page.url() : undefined;
    await this.close();
    this.headedNow = true;
    const numbered = await this.page();
    if (url && url !== 'about:blank') await numbered.page.goto(url, { waitUntil: 'domcontentloaded' });
  }

  async close(): Promise<void> {
    const context = this.context;
    this.context = undefined;
    this.numbered = undefined;
    await context?.close().catch(() => undefined);
  }

  private async launch(headed: boolean): Promise<BrowserContext> {
    const env = this.options.env ?? process.env;
    if (headed && !env.DISPLAY) throw new BrowserUnavailableError('a visible browser needs a display (DISPLAY is not set)');
    mkdirSync(this.options.profileDir, { recursive: true, mode: 0o700 });
    try {
      this.context = await chromium.launchPersistentContext(this.options.profileDir, {
        executablePath: this.options.executablePath,
        headless: !headed,
        // Chromium refuses its sandbox as root; as any other user it keeps it.
        chromiumSandbox: process.getuid?.() !== 0,
        args: [...CHROMIUM_QUIET_FLAGS],
        viewport: headed ? null : { width: 1280, height: 760 },
        env: env as Record<string, string>,
        timeout: 30_000,
      });
      return this.context;
    } catch (error) {
      throw new BrowserUnavailableError(`the browser could not start: ${(error as Error).message.split('\n')[0]}`);
    }
  }
}
