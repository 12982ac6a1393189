import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BrowserStateError } from '../display/errors.js';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import {
  MAX_BROWSER_STATE_BYTES,
  MAX_SAVED_TABS,
  parseBrowserState,
  restorableUrl,
  serializeBrowserState,
  type SavedBrowserState,
  type SavedCookie,
} from './browser-state.js';
import { cookieParam } from './browser-state-cdp.js';
import {
  BROWSER_STATE_FILE,
  readBrowserStateFile,
  removeStaleTemporaries,
  writeBrowserStateFile,
  type BrowserStatePlace,
} from './browser-state-file.js';

const session = (name: string, value = 'v'): SavedCookie => ({
  name,
  value,
  domain: 'site.test',
  path: '/',
  httpOnly: true,
  secure: false,
});
const fileText = (state: Partial<SavedBrowserState> & Record<string, unknown>): string =>
  JSON.stringify({ version: 1, tabs: [], activeTab: null, cookies: [], ...state });

describe('the saved browser state', () => {
  it('restores web pages only', () => {
    for (const url of ['http://site.test/a?b=1', 'https://site.test/']) expect([url, restorableUrl(url)]).toEqual([url, true]);
    for (const url of [
      'about:blank',
      'chrome://settings',
      'file:///etc/passwd',
      'data:text/html,hi',
      'devtools://devtools/bundled/inspector.html',
      'javascript:alert(1)',
      'chrome-error://chromewebdata/',
      `https://site.test/${'x'.repeat(20_000)}`,
    ]) {
      expect([url.slice(0, 40), restorableUrl(url)]).toEqual([url.slice(0, 40), false]);
    }
  });

  it('refuses a file that is not its format, whole', () => {
    for (const text of ['', '{"version":1,"tabs":[', '[]', '{"version":2,"tabs":[],"cookies":[]}', '{"version":1}']) {
      expect(() => parseBrowserState(text)).toThrow(BrowserStateError);
    }
  });

  it('leaves out entries that are not a web tab or a cookie, and keeps the front tab', () => {
    const parsed = parseBrowserState(
      fileText({
        tabs: [{ url: 'chrome://settings' }, { url: 'http://a.test/' }, { nope: 1 }, { url: 'https://b.test/' }] as never,
        activeTab: 3,
        cookies: [session('ok'), { name: 'no domain', value: '' }, { ...session('opaque'), partitionKeyOpaque: true }] as never,
      }),
    );
    expect(parsed).toEqual({
      tabs: [{ url: 'http://a.test/' }, { url: 'https://b.test/' }],
      activeTab: 1,
      cookies: [session('ok')],
    });
    const many = parseBrowserState(fileText({ tabs: Array.from({ length: 80 }, (_, i) => ({ url: `http://t.test/${i}` })) }));
    expect(many.tabs).toHaveLength(MAX_SAVED_TABS);
  });

  it('stays within its size bound, keeping session cookies before persistent ones', () => {
    const big = 'x'.repeat(4_000);
    const cookies: SavedCookie[] = [];
    for (let i = 0; i < 800; i += 1) cookies.push({ ...session(`s${i}`, big) });
    for (let i = 0; i < 800; i += 1) cookies.push({ ...session(`p${i}`, big), expires: 2_000_000_000 });
    const text = serializeBrowserState({ tabs: [{ url: 'http://a.test/' }], activeTab: 0, cookies });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_BROWSER_STATE_BYTES);
    const kept = parseBrowserState(text).cookies;
    expect(kept.filter((c) => c.expires === undefined)).toHaveLength(800);
    expect(kept.length).toBeLessThan(1_600);
  });

  it('sets a host-only cookie back by URL, a domain cookie by domain, a session cookie without expiry', () => {
    expect(cookieParam({ ...session('a'), secure: true, path: '/app' })).toEqual({
      name: 'a',
      value: 'v',
      path: '/app',
      httpOnly: true,
      secure: true,
      url: 'https://site.test/app',
    });
    expect(cookieParam({ ...session('b'), domain: '.site.test', expires: 2_000_000_000 })).toMatchObject({
      domain: '.site.test',
      expires: 2_000_000_000,
    });
    expect(cookieParam(session('c'))).not.toHaveProperty('expires');
  });
});

describe('the browser state file', () => {
  const root = tempDirPath('lazyboy-browser-state-file-');
  const homeDir = path.join(root, 'home');
  const place: BrowserStatePlace = { homeDir, profileDir: path.join(homeDir, '.lazyboy', 'chromium', 'p'), owner: undefined };
  const file = path.join(place.profileDir, BROWSER_STATE_FILE);
  const state: SavedBrowserState = { tabs: [{ url: 'http://a.test/' }], activeTab: 0, cookies: [session('sid')] };

  beforeAll(() => {
    makeWalkableDir(root);
    mkdirSync(place.profileDir, { recursive: true });
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is written atomically, 0600, and read back', async () => {
    expect(await readBrowserStateFile(place)).toBeUndefined();
    await writeBrowserStateFile(place, serializeBrowserState(state));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await readBrowserStateFile(place)).toEqual(state);
    expect(readdirSync(place.profileDir)).toEqual([BROWSER_STATE_FILE]);
  });

  it('removes what a killed writer left half-written', async () => {
    writeFileSync(`${file}.0123456789ab.tmp`, '{"vers');
    await removeStaleTemporaries(place);
    expect(readdirSync(place.profileDir)).toEqual([BROWSER_STATE_FILE]);
  });

  it('is never read through a link, from a FIFO, or beyond its bound', async () => {
    const elsewhere = path.join(root, 'elsewhere.json');
    writeFileSync(elsewhere, serializeBrowserState(state));
    rmSync(file);
    symlinkSync(elsewhere, file);
    await expect(readBrowserStateFile(place)).rejects.toThrow(/symbolic link/);
    rmSync(file);
    execFileSync('mkfifo', [file]);
    await expect(readBrowserStateFile(place)).rejects.toThrow(/not a plain file/);
    rmSync(file);
    writeFileSync(file, ' '.repeat(MAX_BROWSER_STATE_BYTES + 1));
    await expect(readBrowserStateFile(place)).rejects.toThrow(/larger than/);
    rmSync(file);
  });

  it('is neither written nor read when a folder of the profile was swapped for a link out of the home', async () => {
    const outside = path.join(root, 'outside');
    mkdirSync(outside);
    const chromiumDir = path.dirname(place.profileDir);
    rmSync(chromiumDir, { recursive: true });
    symlinkSync(outside, chromiumDir);
    mkdirSync(path.join(outside, 'p'));
    await expect(writeBrowserStateFile(place, serializeBrowserState(state))).rejects.toThrow(BrowserStateError);
    await expect(readBrowserStateFile(place)).rejects.toThrow(/is not a folder of/);
    expect(existsSync(path.join(outside, 'p', BROWSER_STATE_FILE))).toBe(false);
  });
});
