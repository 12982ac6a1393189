// The agent's browser actions on fixture pages served by the bench, in a headless Chromium: medians of
// observe, click by number, drag (a slider) and type, each with the observation that follows it as the
// tool does; and the observation's size in characters for a page of 200 interactive elements (it is sent
// to the model every round, so it should stay small). BENCH_BROWSER_REPS (default 30) scales the runs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { NumberedPage, renderObservation } from '@lazyboy/desktop';
import { median } from './stats.js';

const REPS = Number(process.env.BENCH_BROWSER_REPS ?? 30);

const WORK_PAGE = `<!doctype html><title>Work</title>
  <p>Clicks: <span id="n">0</span></p>
  <button id="add">Add one</button>
  <label>Name <input id="name"></label>
  <input id="s" type="range" min="0" max="100" value="0" style="width:300px">
  <script>document.getElementById('add').addEventListener('click', () => { n.textContent = Number(n.textContent) + 1; });</script>`;

/** 200 interactive elements of the usual kinds: links, buttons, inputs, script-clickable rows, icons. */
function manyElementsPage(): string {
  const rows: string[] = [];
  for (let i = 0; i < 40; i++) {
    rows.push(`<tr><td><a href="/item/${i}">Item ${i}</a></td><td><button>Edit</button></td>
      <td><input aria-label="Quantity ${i}" value="${i}"></td><td class="row" data-i="${i}">Row ${i} details</td>
      <td><span role="button" aria-label="Delete ${i}"><img src="/icons/trash.svg" width="12" height="12"></span></td></tr>`);
  }
  return `<!doctype html><title>Two hundred</title><h1>Orders</h1><table>${rows.join('')}</table>
    <script>for (const td of document.querySelectorAll('.row')) td.addEventListener('click', () => td.classList.toggle('on'));</script>`;
}

const PAGES: Record<string, string> = { '/work': WORK_PAGE, '/many': manyElementsPage() };

async function main(): Promise<void> {
  const server = http.createServer((req, res) => {
    const body = PAGES[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    chromiumSandbox: process.getuid?.() !== 0,
    args: ['--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const numbered = new NumberedPage(page);
    const first = await numbered.navigate(`${base}/work`);
    const id = (name: string, role?: string) => {
      const found = first.elements.find((e) => (role ? e.role === role : e.name === name));
      if (!found) throw new Error(`the work page shows no ${role ?? name}`);
      return found.id;
    };
    const timed = async (work: () => Promise<unknown>): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < REPS; i++) {
        const start = performance.now();
        await work();
        times.push(performance.now() - start);
      }
      return times;
    };
    const observe = await timed(() => numbered.observe());
    const click = await timed(async () => {
      await numbered.click({ element: id('Add one') });
      await numbered.observe();
    });
    if ((await page.textContent('#n')) !== String(REPS)) throw new Error('clicks were lost');
    let to = 0;
    const drag = await timed(async () => {
      to = to === 290 ? 10 : 290;
      await numbered.drag(
        { element: id('', 'slider'), x: to === 290 ? 10 : 290, y: 8 },
        { element: id('', 'slider'), x: to, y: 8 },
      );
      await numbered.observe();
    });
    const type = await timed(async () => {
      await numbered.type(id('Name'), 'Ada Lovelace');
      await numbered.observe();
    });
    const many = await numbered.navigate(`${base}/many`);
    const rendered = renderObservation(many);

    console.log(`observe, median of ${REPS}: ${median(observe).toFixed(1)} ms`);
    console.log(`click by number + observe, median of ${REPS}: ${median(click).toFixed(1)} ms`);
    console.log(`drag a slider + observe, median of ${REPS}: ${median(drag).toFixed(1)} ms`);
    console.log(`type 12 characters + observe, median of ${REPS}: ${median(type).toFixed(1)} ms`);
    console.log(
      `observation of a 200-element page: ${many.elements.length} elements numbered, ${rendered.length} characters (${(rendered.length / many.elements.length).toFixed(0)} per element)`,
    );
  } finally {
    await browser.close();
    server.close();
  }
}

await main();
