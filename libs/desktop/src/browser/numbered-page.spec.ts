import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  ElementNotFoundError,
  MAX_EVAL_RESULT_CHARS,
  NumberedPage,
  renderObservation,
  StaleElementError,
} from './numbered-page.js';

const PAGES: Record<string, string> = {
  '/form': `<!doctype html><title>Sign in</title>
    <h1>Welcome back</h1>
    <a href="/next">Pricing</a>
    <label>Email <input id="email" type="email" placeholder="you@example.com"></label>
    <label>Password <input id="password" type="password"></label>
    <select id="country"><option>Japan</option><option>Taiwan</option></select>
    <button id="go" disabled onclick="document.title='submitted:'+document.getElementById('email').value+':'+document.getElementById('country').value">Sign in</button>
    <div style="display:none"><button>Hidden</button></div>
    <div style="height:0;overflow:hidden"><button>Folded</button></div>
    <div style="margin-top:2000px"><button id="far" onclick="document.title='far clicked'">Far below</button></div>
    <script>setTimeout(() => document.getElementById('go').disabled = false, 1500)</script>`,
  '/next': `<!doctype html><title>Pricing</title><button onclick="document.title='bought'">Buy</button>`,
  '/search': `<!doctype html><title>Search</title>
    <form action="/results"><input name="q" aria-label="Query"></form>`,
  '/results': `<!doctype html><title>Results</title><p>Found it</p>`,
  '/late': `<!doctype html><title>Late</title><p>Loaded</p><img src="/slow.png">`,
  '/long': `<!doctype html><title>Long</title><div style="height:5000px">Top</div><p>Bottom</p>`,
  '/covered': `<!doctype html><title>Covered</title>
    <button id="under" onclick="document.title='under'" style="position:absolute;top:10px;left:10px;width:100px;height:40px">Under</button>
    <div style="position:absolute;top:0;left:0;width:300px;height:300px;background:#fff8"></div>`,
};

describe('NumberedPage (real Chromium)', () => {
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      // An image that never arrives: the page's load event never fires, and nothing may wait for it forever.
      if (req.url === '/slow.png') return;
      const body = PAGES[(req.url ?? '').split('?')[0]!];
      res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body ?? 'not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      // Root cannot use Chromium's sandbox; the desktop worker runs it sandboxed as its own user.
      chromiumSandbox: process.getuid?.() !== 0,
      args: [
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  });

  it('numbers the visible interactive elements and leaves out hidden ones and password contents', async () => {
    const numbered = new NumberedPage(page);
    const observed = await numbered.navigate(`${base}/form`);
    await page.fill('#password', 'hunter2');
    const again = await numbered.observe();
    const text = renderObservation(again);

    expect(observed.elements.map((e) => `${e.id} ${e.role} ${e.name}`)).toEqual([
      '1 link Pricing',
      '2 textbox (email) Email',
      '3 textbox (password) Password',
      '4 select country',
      '5 button Sign in',
      '6 button Far below',
    ]);
    expect(again.generation).toBe(observed.generation + 1);
    // The first observation, right after load: the button is still disabled (for 1.5 s).
    expect(renderObservation(observed)).toContain('[5] button "Sign in" disabled');
    expect(text).toContain('[6] button "Far below" (off-screen)');
    expect(text).toContain('[3] textbox (password) "Password" filled');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('Hidden');
    expect(text).not.toContain('Folded');
    expect(text).toContain('Welcome back');
  });

  it('types, selects and clicks by number, waiting for a disabled button to become enabled', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/form`);
    await numbered.type(2, 'ada@example.com');
    expect(await numbered.select(4, 'Taiwan')).toBe('Taiwan');
    await numbered.click(5); // disabled for 1.5 s after load
    expect(await page.title()).toBe('submitted:ada@example.com:Taiwan');
  });

  it('scrolls an off-screen element into view before clicking it', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/form`);
    await numbered.click(6);
    expect(await page.title()).toBe('far clicked');
  });

  it('refuses numbers from an older observation after the page changed, and unknown numbers', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/form`);
    await numbered.click(1); // the link: a new page, so every number is stale
    expect(page.url()).toBe(`${base}/next`);
    await expect(numbered.click(1)).rejects.toBeInstanceOf(StaleElementError);
    expect(await page.title()).toBe('Pricing');

    await numbered.observe();
    await expect(numbered.click(9)).rejects.toBeInstanceOf(ElementNotFoundError);
    await numbered.click(1);
    expect(await page.title()).toBe('bought');
  });

  it('waits for the new document after Enter submits a form, and goes back and forward', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/search`);
    await numbered.type(1, 'needle');
    await numbered.press('Enter');
    // No sleep in between: the press itself waited for the results page to be parsed.
    expect(renderObservation(await numbered.observe())).toContain('Found it');
    expect(page.url()).toBe(`${base}/results?q=needle`);

    expect(await numbered.history('back')).toBe(true);
    expect(page.url()).toBe(`${base}/search`);
    expect(await numbered.history('forward')).toBe(true);
    expect((await numbered.observe()).title).toBe('Results');
    expect(await numbered.history('forward')).toBe(false);
  });

  it('observes a page whose load never finishes once its document is parsed', async () => {
    const numbered = new NumberedPage(page);
    const observed = await numbered.navigate(`${base}/late`);
    expect(observed.text).toContain('Loaded');
  });

  it('scrolls by a wheel event and observes once the page has come to rest', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/long`);
    await numbered.scroll('down', 1_200);
    const down = await numbered.observe();
    expect(down.scroll.y).toBe(1_200);
    await numbered.scroll('up');
    expect((await numbered.observe()).scroll.y).toBeLessThan(1_200);
  });

  it('evaluates an expression and cuts a value too long for the model', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/next`);
    expect(await numbered.evaluate('document.title')).toEqual({ value: 'Pricing' });
    expect(await numbered.evaluate('undefined')).toEqual({ value: null });
    const long = await numbered.evaluate(`'x'.repeat(${MAX_EVAL_RESULT_CHARS * 2})`);
    expect(long.truncated).toBe(true);
    expect(String(long.value)).toHaveLength(MAX_EVAL_RESULT_CHARS);
  });

  it('does not click what is covered by another element', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/covered`);
    await expect(numbered.click(1)).rejects.toThrow(/covered by something else/);
    expect(await page.title()).toBe('Covered');
  });
});
