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
  '/pointer': `<!doctype html><title>Pointer</title>
    <style>#menu{display:none} #wrap:hover #menu{display:block} li.on{background:#cde}
      #terms{height:80px;overflow:auto;border:1px solid}</style>
    <div id="wrap"><button>File</button><div id="menu"><button onclick="document.title='opened'">Open…</button></div></div>
    <table><tr><td id="cell" ondblclick="this.textContent='editing'">Cell</td></tr></table>
    <ul id="rows"><li>Apple</li><li>Pear</li><li>Plum</li></ul>
    <canvas id="c" width="200" height="100" style="border:1px solid"></canvas>
    <input id="s" type="range" min="0" max="100" value="0" style="width:200px">
    <div id="terms" tabindex="0"><p style="height:400px">Terms…</p><p>The end</p></div>
    <button id="accept" disabled>Accept</button>
    <script>
      const c = document.getElementById('c');
      c.addEventListener('click', (e) => (document.title = 'canvas ' + e.offsetX + ',' + e.offsetY));
      for (const li of document.querySelectorAll('#rows li')) {
        li.tabIndex = 0;
        li.addEventListener('click', (e) => {
          if (!e.ctrlKey) for (const o of document.querySelectorAll('#rows li')) o.classList.remove('on');
          li.classList.toggle('on');
        });
      }
      const t = document.getElementById('terms');
      t.addEventListener('scroll', () => {
        if (t.scrollTop + t.clientHeight >= t.scrollHeight - 2) document.getElementById('accept').disabled = false;
      });
    </script>`,
  '/widgets': `<!doctype html><title>Widgets</title>
    <style>.card{cursor:pointer;padding:4px} .dot{display:inline-block;width:12px;height:12px;background:#d22}
      .ghost{color:transparent} .tiny{font-size:0}</style>
    <div id="scripted">Archive</div>
    <div class="card"><span>Open the report</span></div>
    <div id="toolbar">
      <span role="button" aria-label="" id="trash"><img src="/icons/trash-can.svg" width="16" height="16"></span>
      <i class="fa fa-star" id="star" style="display:inline-block;width:16px;height:16px;color:#e6b800"></i>
      <button id="reply" title=""><svg width="16" height="16" style="fill:#2255dd"><use href="#icon-reply"></use></svg></button>
    </div>
    <span class="dot" id="status"></span>
    <svg width="200" height="100">
      <rect id="bar-a" x="10" y="10" width="40" height="80" fill="#2a7" onclick="document.title='bar green'"><title>Q1</title></rect>
      <rect id="bar-b" x="60" y="40" width="40" height="50" fill="#c33" style="cursor:pointer"><title>Q2</title></rect>
    </svg>
    <div contenteditable="true" id="editor">Make this bold</div>
    <p class="ghost">Invisible ink</p><p class="tiny">Zero size</p><p>Plain words</p>
    <script>
      document.getElementById('scripted').addEventListener('click', () => (document.title = 'archived'));
      document.getElementById('status').addEventListener('pointerdown', () => (document.title = 'status'));
      document.getElementById('trash').addEventListener('click', () => (document.title = 'trash'));
      document.getElementById('star').addEventListener('click', () => (document.title = 'star'));
      document.getElementById('reply').addEventListener('click', () => (document.title = 'reply'));
    </script>`,
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
      // A page that never answers at all.
      if (req.url === '/never') return;
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
      '6 button Folded',
      '7 button Far below',
    ]);
    expect(again.generation).toBe(observed.generation + 1);
    // The first observation, right after load: the button is still disabled (for 1.5 s).
    expect(renderObservation(observed)).toContain('[5] button "Sign in" disabled');
    expect(text).toContain('[7] button "Far below" (off-screen)');
    // Folded away by a box that cuts off its content: there, and said to be out of sight (not clickable).
    expect(text).toContain('[6] button "Folded" (cut off in its box)');
    expect(text).toContain('[3] textbox (password) "Password" filled');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('Hidden');
    expect(text).toContain('Welcome back');
  });

  it('types, selects and clicks by number, waiting for a disabled button to become enabled', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/form`);
    await numbered.type(2, 'ada@example.com');
    expect(await numbered.select(4, 'Taiwan')).toBe('Taiwan');
    await numbered.click({ element: 5 }); // disabled for 1.5 s after load
    expect(await page.title()).toBe('submitted:ada@example.com:Taiwan');
  });

  it('scrolls an off-screen element into view before clicking it', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/form`);
    await expect(numbered.click({ element: 6 })).rejects.toThrow(/element 6 is cut off by a box around it/);
    await numbered.click({ element: 7 });
    expect(await page.title()).toBe('far clicked');
  });

  it('keeps numbering across documents: a number of the old page is refused, an unknown one too', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/form`);
    await numbered.click({ element: 1 }); // the link: a new page, where none of the old numbers is
    expect(page.url()).toBe(`${base}/next`);
    await expect(numbered.click({ element: 1 })).rejects.toBeInstanceOf(StaleElementError);
    expect(await page.title()).toBe('Pricing');

    // The new document numbers on from where the old one stopped, so no number means two elements.
    const next = await numbered.observe();
    expect(next.elements.map((e) => `${e.id} ${e.name}`)).toEqual(['8 Buy']);
    await expect(numbered.click({ element: 10 })).rejects.toBeInstanceOf(ElementNotFoundError);
    await numbered.click({ element: 8 });
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
    await expect(numbered.click({ element: 1 })).rejects.toThrow(/covered by something else/);
    expect(await page.title()).toBe('Covered');
  });

  it('hovers, double-clicks, Control-clicks, clicks a canvas at a point, drags a slider and scrolls one box', async () => {
    const numbered = new NumberedPage(page);
    const first = await numbered.navigate(`${base}/pointer`);
    const id = (name: string) => {
      const found = first.elements.find((e) => e.name === name);
      if (!found) throw new Error(`the fixture shows no element "${name}"`);
      return found.id;
    };
    expect(renderObservation(first)).not.toContain('Open…');
    await numbered.hover({ element: id('File') });
    const open = (await numbered.observe()).elements.find((e) => e.name === 'Open…');
    expect(open).toBeDefined();
    await numbered.click({ element: open!.id });
    expect(await page.title()).toBe('opened');

    await numbered.click({ element: id('Cell') }, { count: 2 });
    expect(await page.textContent('#cell')).toBe('editing');

    await numbered.click({ element: id('Apple') });
    await numbered.click({ element: id('Plum') }, { modifiers: ['Control'] });
    expect(await page.$$eval('#rows li.on', (rows) => rows.map((r) => r.textContent))).toEqual(['Apple', 'Plum']);

    const canvas = first.elements.find((e) => e.role === 'canvas')!;
    expect(renderObservation(first)).toContain(`[${canvas.id}] canvas box=`);
    await numbered.click({ element: canvas.id, x: 150, y: 40 });
    expect(await page.title()).toMatch(/^canvas 1(49|50|51),(39|40|41)$/);

    const slider = first.elements.find((e) => e.role === 'slider')!;
    await numbered.drag({ element: slider.id }, { element: slider.id, x: slider.box.width - 1, y: slider.box.height / 2 });
    expect(await page.inputValue('#s')).toBe('100');

    expect(await page.isDisabled('#accept')).toBe(true);
    await numbered.scroll('down', 10_000, id('Terms… The end'));
    expect(await page.isDisabled('#accept')).toBe(false);
    expect((await numbered.observe()).scroll.y).toBe(0);
  });

  it('numbers what scripts and styles made clickable, says what icons show and what colour shapes are, and leaves out invisible text', async () => {
    const numbered = new NumberedPage(page);
    const observed = await numbered.navigate(`${base}/widgets`);
    const text = renderObservation(observed);
    const line = (name: RegExp) => text.split('\n').find((l) => name.test(l)) ?? `no line matches ${name}`;
    // A click handler added by addEventListener, and a pointer cursor: numbered though no selector finds them.
    expect(line(/"Archive"/)).toMatch(/^\[\d+\] clickable "Archive"$/);
    expect(line(/"Open the report"/)).toMatch(/^\[\d+\] clickable "Open the report"$/);
    expect(text.match(/"Open the report"/g)).toHaveLength(1);
    // Icons by their picture's file name, their icon font, their sprite's symbol; with the icon's ink.
    expect(line(/icon="trash can"/)).toMatch(/^\[\d+\] button icon="trash can"/);
    expect(line(/icon="star"/)).toMatch(/^\[\d+\] clickable icon="star" colour=yellow$/);
    expect(line(/icon="reply"/)).toMatch(/^\[\d+\] button icon="reply" colour=blue$/);
    // A coloured dot with a handler; a chart's bars by their titles and colours.
    expect(line(/colour=red$/)).toMatch(/^\[\d+\] clickable colour=red$/);
    expect(line(/"Q1"/)).toMatch(/^\[\d+\] shape "Q1" colour=green$/);
    expect(line(/"Q2"/)).toMatch(/^\[\d+\] shape "Q2" colour=red$/);
    expect(line(/"Make this bold"/)).toMatch(/^\[\d+\] rich text editor "Make this bold"$/);
    expect(text).toContain('Plain words');
    expect(text).not.toContain('Invisible ink');
    expect(text).not.toContain('Zero size');

    const q1 = Number(/^\[(\d+)\]/.exec(line(/"Q1"/))![1]);
    await numbered.click({ element: q1 });
    expect(await page.title()).toBe('bar green');
    const archive = Number(/^\[(\d+)\]/.exec(line(/"Archive"/))![1]);
    await numbered.click({ element: archive });
    expect(await page.title()).toBe('archived');
  });

  it('gives up on a page that never answers within its deadline, and the tab observes at once after', async () => {
    const numbered = new NumberedPage(page);
    await numbered.navigate(`${base}/form`);
    const started = Date.now();
    await expect(numbered.navigate(`${base}/never`)).rejects.toThrow(/did not answer within 15 s; its load was stopped/);
    expect(Date.now() - started).toBeLessThan(30_000);
    const after = Date.now();
    const seen = await numbered.observe();
    expect(Date.now() - after).toBeLessThan(10_000);
    expect(seen.url).toMatch(/\/form$|\/never$/);
  }, 60_000);

  it("keeps an element's number while it lives and gives elements added later new numbers", async () => {
    const numbered = new NumberedPage(page);
    const first = await numbered.navigate(`${base}/form`);
    const far = first.elements.find((e) => e.name === 'Far below')!.id;
    await page.evaluate(() => document.body.prepend(Object.assign(document.createElement('button'), { textContent: 'New' })));
    const again = await numbered.observe();
    expect(again.elements.find((e) => e.name === 'Far below')!.id).toBe(far);
    expect(again.elements[0]).toMatchObject({ name: 'New', id: Math.max(...first.elements.map((e) => e.id)) + 1 });
  });
});
