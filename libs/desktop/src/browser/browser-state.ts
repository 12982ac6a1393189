import { BrowserStateError } from '../display/errors.js';

/**
 * What a screen's browser keeps across a stop and the next start: its open tabs and its whole cookie jar,
 * session cookies included (Chromium writes those to its own cookie database only under "continue where
 * you left off", and drops them after a crash). The worker saves it in the profile
 * (browser-state-file.ts) and puts it back at the next launch (browser-state-cdp.ts).
 */
export interface SavedBrowserState {
  /** http(s) tabs only, in tab-strip order. */
  tabs: SavedTab[];
  /** Index into `tabs` of the tab in front; null when the front tab was not one worth restoring. */
  activeTab: number | null;
  cookies: SavedCookie[];
}

export interface SavedTab {
  url: string;
}

/** A cookie as Storage.getCookies describes it, in the fields Storage.setCookies takes back. */
export interface SavedCookie {
  name: string;
  value: string;
  /** A leading dot: a domain cookie; none: host-only. */
  domain: string;
  path: string;
  /** Seconds since the epoch; absent for a session cookie. */
  expires?: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite?: CookieSameSite;
  priority?: CookiePriority;
  sourceScheme?: CookieSourceScheme;
  sourcePort?: number;
  /** CHIPS: the top-level site a partitioned cookie belongs to. */
  partitionKey?: { topLevelSite: string; hasCrossSiteAncestor: boolean };
}

type CookieSameSite = 'Strict' | 'Lax' | 'None';
type CookiePriority = 'Low' | 'Medium' | 'High';
type CookieSourceScheme = 'Unset' | 'NonSecure' | 'Secure';

/** The file's own format number: a file of another version is not read (start clean). */
export const BROWSER_STATE_VERSION = 1;

/**
 * Bounds on what a page can make the worker write: a file is never larger than this (cookies are left
 * out to fit, session cookies last, see fitBrowserState) and a larger one is not read. Chromium's own jar
 * holds at most 3300 cookies of about 4 KB, so real jars stay far below it.
 */
export const MAX_BROWSER_STATE_BYTES = 4 * 1024 * 1024;
export const MAX_SAVED_COOKIES = 3_000;
export const MAX_SAVED_TABS = 50;
/** Longer URLs carry data rather than an address (a data-laden query); such a tab is not restored. */
export const MAX_SAVED_URL_LENGTH = 16 * 1024;

/** Only web pages come back: not about:, chrome:, file:, data:, devtools: or a javascript: URL. */
export function restorableUrl(url: string): boolean {
  if (url.length > MAX_SAVED_URL_LENGTH) return false;
  try {
    const protocol = new URL(url).protocol;
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** The same state always serialises to the same text: cookies in a fixed order, tabs as they are. */
export function normalizeBrowserState(state: SavedBrowserState): SavedBrowserState {
  const tabs: SavedTab[] = [];
  let activeTab: number | null = null;
  for (const [index, tab] of state.tabs.entries()) {
    if (tabs.length >= MAX_SAVED_TABS || !restorableUrl(tab.url)) continue;
    if (index === state.activeTab) activeTab = tabs.length;
    tabs.push({ url: tab.url });
  }
  const cookies = [...state.cookies].sort(compareCookies).slice(0, MAX_SAVED_COOKIES);
  return { tabs, activeTab, cookies };
}

/**
 * The file's text, within MAX_BROWSER_STATE_BYTES: when the jar is too large, persistent cookies go first
 * (Chromium keeps those in its own database anyway), then session cookies, largest first.
 */
export function serializeBrowserState(state: SavedBrowserState): string {
  const text = toText(state);
  if (Buffer.byteLength(text) <= MAX_BROWSER_STATE_BYTES) return text;
  return toText(fitBrowserState(state));
}

function fitBrowserState(state: SavedBrowserState): SavedBrowserState {
  const budget = MAX_BROWSER_STATE_BYTES - Buffer.byteLength(toText({ ...state, cookies: [] })) - 1_024;
  const byKeepFirst = [...state.cookies].sort(
    (a, b) => Number(a.expires !== undefined) - Number(b.expires !== undefined) || cookieBytes(a) - cookieBytes(b),
  );
  const kept = new Set<SavedCookie>();
  let used = 0;
  for (const cookie of byKeepFirst) {
    const bytes = cookieBytes(cookie) + 1;
    if (used + bytes > budget) break;
    used += bytes;
    kept.add(cookie);
  }
  return { ...state, cookies: state.cookies.filter((cookie) => kept.has(cookie)) };
}

function toText(state: SavedBrowserState): string {
  return `${JSON.stringify({ version: BROWSER_STATE_VERSION, ...state })}\n`;
}

function cookieBytes(cookie: SavedCookie): number {
  return Buffer.byteLength(JSON.stringify(cookie));
}

/**
 * Reads a saved file's text. The file lies in a folder the computer's user owns, so it is checked as
 * input: a file that is not this format is refused whole (BrowserStateError); single entries that are not
 * a tab or a cookie are left out, and the bounds hold again.
 */
export function parseBrowserState(text: string): SavedBrowserState {
  if (Buffer.byteLength(text) > MAX_BROWSER_STATE_BYTES) {
    throw new BrowserStateError(`the saved browser state is larger than ${MAX_BROWSER_STATE_BYTES} bytes`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new BrowserStateError(`the saved browser state is not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(raw) || raw['version'] !== BROWSER_STATE_VERSION) {
    throw new BrowserStateError(`the saved browser state is not of version ${BROWSER_STATE_VERSION}`);
  }
  if (!Array.isArray(raw['tabs']) || !Array.isArray(raw['cookies'])) {
    throw new BrowserStateError('the saved browser state has no tabs or no cookies list');
  }
  const tabs = raw['tabs'].map((tab) => (isRecord(tab) && typeof tab['url'] === 'string' ? { url: tab['url'] } : { url: '' }));
  const active = raw['activeTab'];
  const activeTab = typeof active === 'number' && Number.isInteger(active) && active >= 0 && active < tabs.length ? active : null;
  const cookies = raw['cookies'].map(asSavedCookie).filter((cookie) => cookie !== undefined);
  return normalizeBrowserState({ tabs, activeTab, cookies });
}

/** A cookie from Storage.getCookies or a saved file, if it has what setCookies needs; anything else is dropped. */
export function asSavedCookie(value: unknown): SavedCookie | undefined {
  if (!isRecord(value)) return undefined;
  const { name, value: content, domain, path, expires, httpOnly, secure, session } = value;
  if (typeof name !== 'string' || typeof content !== 'string' || typeof domain !== 'string' || typeof path !== 'string') {
    return undefined;
  }
  if (!domain || !path.startsWith('/')) return undefined;
  // A partitioned cookie whose partition cannot be named (an opaque top-level site) cannot be set back.
  if (value['partitionKeyOpaque'] === true) return undefined;
  const cookie: SavedCookie = { name, value: content, domain, path, httpOnly: httpOnly === true, secure: secure === true };
  if (session !== true && typeof expires === 'number' && Number.isFinite(expires) && expires > 0) cookie.expires = expires;
  const sameSite = oneOf(value['sameSite'], ['Strict', 'Lax', 'None'] as const);
  if (sameSite) cookie.sameSite = sameSite;
  const priority = oneOf(value['priority'], ['Low', 'Medium', 'High'] as const);
  if (priority) cookie.priority = priority;
  const sourceScheme = oneOf(value['sourceScheme'], ['Unset', 'NonSecure', 'Secure'] as const);
  if (sourceScheme) cookie.sourceScheme = sourceScheme;
  const port = value['sourcePort'];
  if (typeof port === 'number' && Number.isInteger(port) && (port === -1 || (port >= 1 && port <= 65_535))) {
    cookie.sourcePort = port;
  }
  const partition = value['partitionKey'];
  if (isRecord(partition) && typeof partition['topLevelSite'] === 'string') {
    cookie.partitionKey = {
      topLevelSite: partition['topLevelSite'],
      hasCrossSiteAncestor: partition['hasCrossSiteAncestor'] === true,
    };
  }
  return cookie;
}

function compareCookies(a: SavedCookie, b: SavedCookie): number {
  return (
    byText(a.domain, b.domain) ||
    byText(a.path, b.path) ||
    byText(a.name, b.name) ||
    byText(a.partitionKey?.topLevelSite ?? '', b.partitionKey?.topLevelSite ?? '')
  );
}

/** Code-unit order, not the locale's: the same jar serialises the same on every host. */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((option) => option === value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
