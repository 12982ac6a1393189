import { waitFor } from '../process/wait.js';
import {
  asSavedCookie,
  normalizeBrowserState,
  type SavedBrowserState,
  type SavedCookie,
  type SavedTab,
} from './browser-state.js';

/** Root-level (browser target) CDP calls, as CdpPipe makes them. */
export interface BrowserCalls {
  call(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
}

/** One call of a capture or restore: the browser answers these from memory in a millisecond or two. */
const CALL_MS = 3_000;
/** Setting a whole jar back in one call; a few thousand cookies take well under a second. */
const SET_COOKIES_MS = 10_000;
/** A browser that answers CDP may not have opened its first window yet. */
const FIRST_WINDOW_MS = 5_000;
/** How long the blank start-up tab is asked to close. */
const CLOSE_STARTUP_MS = 5_000;
/** A tab takes a moment to close (its unload): asked again only after this. */
const CLOSE_AGAIN_MS = 500;

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
  /** Chromium's own facts about a tab target: `tabStripIndex`, `tabActive`, `tabPinned`. */
  embedderData?: Record<string, unknown>;
}

export interface CapturedBrowserState {
  /** What is worth saving: http(s) tabs only, the jar within its bounds. */
  saved: SavedBrowserState;
  /** Every tab the browser has open, blank and internal pages included. */
  openTabs: number;
}

/**
 * The browser's state now: its tabs from the `tab` targets (Chromium says their place in the tab strip
 * and which one is in front, with no page to attach to or script to run) and every cookie of the default
 * context from Storage.getCookies on the browser target, session cookies included.
 */
export async function captureBrowserState(browser: BrowserCalls): Promise<CapturedBrowserState> {
  const [tabs, jar] = await Promise.all([openTabs(browser), browser.call('Storage.getCookies', {}, CALL_MS)]);
  const ordered = tabs
    .map((tab, order) => ({ tab, order, index: numberOr(tab.embedderData?.['tabStripIndex'], order) }))
    .sort((a, b) => a.index - b.index || a.order - b.order)
    .map(({ tab }) => tab);
  const active = ordered.findIndex((tab) => tab.embedderData?.['tabActive'] === true);
  const raw = (jar as { cookies?: unknown } | undefined)?.cookies;
  const cookies = (Array.isArray(raw) ? raw : []).map(asSavedCookie).filter((cookie) => cookie !== undefined);
  const saved = normalizeBrowserState({
    tabs: ordered.map((tab): SavedTab => ({ url: tab.url })),
    activeTab: active === -1 ? null : active,
    cookies,
  });
  return { saved, openTabs: tabs.length };
}

export interface RestoredBrowserState {
  tabs: number;
  cookies: number;
  /** Cookies the browser refused (expired meanwhile, or fields it no longer accepts). */
  refusedCookies: number;
}

/**
 * Puts a saved state back into a browser that has just started: the cookies first, so that the tabs'
 * first requests carry them; then the tabs in their order, the front one in front, and finally the blank
 * start-up tab closed (closing it first would close the window, and the browser). Without a front tab
 * saved, Chromium brings the first one forward as the blank one closes.
 */
export async function restoreBrowserState(browser: BrowserCalls, state: SavedBrowserState): Promise<RestoredBrowserState> {
  const nowSeconds = Date.now() / 1_000;
  const params = state.cookies.filter((cookie) => cookie.expires === undefined || cookie.expires > nowSeconds).map(cookieParam);
  let refusedCookies = 0;
  if (params.length > 0) {
    try {
      await browser.call('Storage.setCookies', { cookies: params }, SET_COOKIES_MS);
    } catch {
      // One cookie the browser refuses fails the whole call: set them one by one, leaving that one out.
      for (const cookie of params) {
        await browser.call('Storage.setCookies', { cookies: [cookie] }, CALL_MS).catch(() => (refusedCookies += 1));
      }
    }
  }
  if (state.tabs.length === 0) return { tabs: 0, cookies: params.length - refusedCookies, refusedCookies };

  const startup = await startupPages(browser);
  let opened = 0;
  for (const [index, tab] of state.tabs.entries()) {
    // The front tab comes to the front as it opens, the others open behind it: no activation afterwards.
    const background = index !== state.activeTab;
    const created = (await browser.call('Target.createTarget', { url: tab.url, background }, CALL_MS)) as
      { targetId?: unknown } | undefined;
    if (typeof created?.targetId === 'string') opened += 1;
  }
  if (opened > 0) await closePages(browser, startup);
  return { tabs: opened, cookies: params.length - refusedCookies, refusedCookies };
}

/**
 * What Storage.setCookies takes for a saved cookie. A host-only cookie (no leading dot) is given by URL,
 * which keeps it host-only; a domain cookie by its domain.
 */
export function cookieParam(cookie: SavedCookie): Record<string, unknown> {
  const { domain, expires, ...rest } = cookie;
  const scope = domain.startsWith('.') ? { domain } : hostOnlyScope(cookie);
  return { ...rest, ...scope, ...(expires === undefined ? {} : { expires }) };
}

function hostOnlyScope(cookie: SavedCookie): { url: string } | { domain: string } {
  const scheme = cookie.secure || cookie.sourceScheme === 'Secure' ? 'https' : 'http';
  const host = cookie.domain.includes(':') && !cookie.domain.startsWith('[') ? `[${cookie.domain}]` : cookie.domain;
  try {
    return { url: new URL(`${scheme}://${host}${cookie.path}`).href };
  } catch {
    return { domain: cookie.domain };
  }
}

/** The tab targets, or on a Chromium that has none the page targets (which then carry no tab-strip facts). */
async function openTabs(browser: BrowserCalls): Promise<TargetInfo[]> {
  const tabs = await targets(browser, 'tab').catch(() => []);
  if (tabs.length > 0) return tabs;
  return targets(browser, 'page');
}

async function targets(browser: BrowserCalls, type: 'tab' | 'page'): Promise<TargetInfo[]> {
  const answer = (await browser.call('Target.getTargets', { filter: [{ type }] }, CALL_MS)) as
    { targetInfos?: unknown } | undefined;
  const infos = Array.isArray(answer?.targetInfos) ? (answer.targetInfos as TargetInfo[]) : [];
  return infos.filter((info) => info.type === type && typeof info.targetId === 'string' && typeof info.url === 'string');
}

/** The blank page the browser was started with, once its window is there (none after FIRST_WINDOW_MS). */
async function startupPages(browser: BrowserCalls): Promise<TargetInfo[]> {
  const blank = async (): Promise<TargetInfo[] | undefined> => {
    const pages = (await targets(browser, 'page')).filter((page) => page.url === 'about:blank');
    return pages.length > 0 ? pages : undefined;
  };
  return waitFor(blank, { signal: AbortSignal.timeout(FIRST_WINDOW_MS), intervalMs: 50 }).catch(() => []);
}

/**
 * Closes the start-up tab and waits until it is gone, so that whoever connects next meets only the
 * restored tabs. Chromium answers closeTarget with success yet now and then keeps a tab it was still
 * setting up, so the close is asked again while the tab stays (bounded: a blank tab left over is only a
 * blank tab).
 */
async function closePages(browser: BrowserCalls, pages: TargetInfo[]): Promise<void> {
  const ids = new Set(pages.map((page) => page.targetId));
  let askedAt = 0;
  const gone = async (): Promise<true | undefined> => {
    const left = (await targets(browser, 'page')).filter((page) => ids.has(page.targetId));
    if (left.length === 0) return true;
    if (Date.now() - askedAt < CLOSE_AGAIN_MS) return undefined;
    askedAt = Date.now();
    for (const page of left)
      await browser.call('Target.closeTarget', { targetId: page.targetId }, CALL_MS).catch(() => undefined);
    return undefined;
  };
  await waitFor(gone, { signal: AbortSignal.timeout(CLOSE_STARTUP_MS), intervalMs: 50 }).catch(() => undefined);
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
