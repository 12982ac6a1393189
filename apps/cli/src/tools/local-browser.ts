import { mkdirSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';
import { refusalOutcome, type BrowserActionResult, type BrowserTransport, type TransportAnswer } from '@lazyboy/agent';
import type { BrowserActionBody, BrowserActionName } from '@lazyboy/contracts';
import { browserFailureCode, BrowserTabs, CHROMIUM_QUIET_FLAGS, performBrowserAction, renderObservation } from '@lazyboy/desktop';

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
 * The CLI's transport of the shared browser tool: Debian's Chromium through playwright-core, launched on
 * first use with a persistent profile, its actions NumberedPage's (as on the worker). DOM-first: no
 * screenshots are sent. Fail-closed: when it cannot start, the tool gets a clear error, nothing pretends.
 */
export class LocalBrowser implements BrowserTransport {
  private context: BrowserContext | undefined;
  private current: BrowserTabs | undefined;
  private headedNow: boolean;

  constructor(private readonly options: LocalBrowserOptions) {
    this.headedNow = options.headed;
  }

  get headed(): boolean {
    return this.headedNow;
  }

  async act<N extends BrowserActionName>(action: N, body: BrowserActionBody<N>): Promise<TransportAnswer<BrowserActionResult>> {
    let tabs: BrowserTabs;
    try {
      tabs = await this.tabs();
    } catch (error) {
      if (!(error instanceof BrowserUnavailableError)) throw error;
      return { ok: false, outcome: refusalOutcome('BROWSER_UNAVAILABLE', error.message) };
    }
    try {
      const { observed, result, tabs: list } = await performBrowserAction(tabs, action, body);
      return {
        ok: true,
        value: {
          url: observed.url,
          title: observed.title,
          generation: observed.generation,
          observation: renderObservation(observed),
          screenshot: null,
          ...(result === undefined ? {} : { result }),
          ...(list ? { tabs: list } : {}),
          control: 'agent',
        },
      };
    } catch (error) {
      const code = browserFailureCode(error);
      // The window was closed or Chromium died: the next call starts it again.
      if (code === 'BROWSER_UNAVAILABLE') await this.close();
      return { ok: false, outcome: refusalOutcome(code, firstLine(error)) };
    }
  }

  /** The browser's tabs, launching it first if needed. */
  async tabs(): Promise<BrowserTabs> {
    if (this.current && this.context) return this.current;
    const context = await this.launch(this.headedNow);
    this.current = new BrowserTabs(context);
    return this.current;
  }

  /** Makes the browser visible for a person: a headless one is relaunched headed on the same page. */
  async makeHeaded(): Promise<void> {
    if (this.headedNow && this.context) return;
    const url = this.current ? (await this.current.activePage()).page.url() : undefined;
    await this.close();
    this.headedNow = true;
    const tabs = await this.tabs();
    if (url && url !== 'about:blank') await (await tabs.activePage()).numbered.navigate(url);
  }

  async close(): Promise<void> {
    const context = this.context;
    this.context = undefined;
    this.current = undefined;
    await context?.close().catch(() => undefined);
  }

  private async launch(headed: boolean): Promise<BrowserContext> {
    const env = this.options.env ?? process.env;
    if (headed && !env.DISPLAY) throw new BrowserUnavailableError('a visible browser needs a display (DISPLAY is not set)');
    mkdirSync(this.options.profileDir, { recursive: true, mode: 0o700 });
    let context: BrowserContext;
    try {
      context = await chromium.launchPersistentContext(this.options.profileDir, {
        executablePath: this.options.executablePath,
        headless: !headed,
        // Chromium refuses its sandbox as root; as any other user it keeps it.
        chromiumSandbox: process.getuid?.() !== 0,
        args: [...CHROMIUM_QUIET_FLAGS],
        viewport: headed ? null : { width: 1280, height: 760 },
        env: env as Record<string, string>,
        timeout: 30_000,
      });
    } catch (error) {
      throw new BrowserUnavailableError(`the browser could not start: ${firstLine(error)}`);
    }
    // A person closing the window ends the context: the next action launches a new one.
    context.on('close', () => {
      if (this.context !== context) return;
      this.context = undefined;
      this.current = undefined;
    });
    this.context = context;
    return context;
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
