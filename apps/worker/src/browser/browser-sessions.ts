import { BrowserTabs, type CdpPipe } from '@lazyboy/desktop';
// playwright-core is a dependency of @lazyboy/desktop, resolved from the workspace root here; apps/worker's
// package.json should list it too (reported, not added: package files belong to whoever owns them).
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { WorkerHttpError } from '../http/errors.js';

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * One slot's Chromium, reached over its DevTools pipe. Connected once and reused; `disconnect()` only
 * disconnects (the desktop's browser keeps running for the person watching it). Its tabs, and the
 * numbered page of each, are libs/desktop's BrowserTabs, as in the CLI.
 */
export class BrowserSession {
  readonly tabs: BrowserTabs;

  constructor(
    readonly pipe: CdpPipe,
    readonly browser: Browser,
    context: BrowserContext,
  ) {
    this.tabs = new BrowserTabs(context);
  }

  get connected(): boolean {
    return this.browser.isConnected();
  }

  async disconnect(): Promise<void> {
    await this.browser.close().catch(() => undefined);
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
