// Benchmark of a computer's desktop: cold boot of one display to CDP-ready, wake from suspend, private
// memory (and process count) of an extra idle display, click-by-number followed by observe in that display's
// Chromium, and (as root, where screens are network islands) a page load through the egress proxy.
// Run with `npm run bench:desktop` after a build (as root it runs the desktop as its own user, as in
// production). Targets: boot median ≤ 2.0 s; wake ≤ 100 ms; ≤ 250 MiB per extra idle display;
// click + observe median ≤ 150 ms.
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ScreenManager, findFreeDisplayBase, NumberedPage } from '@lazyboy/desktop';
import type { StandInInternet } from '../libs/desktop/src/testing/stand-in-internet.js';
import { median } from './stats.js';

/** The test helper is outside the lib's build: tsconfig.stand-in.json compiles it next to this file's output. */
async function loadStandInInternet(): Promise<typeof StandInInternet> {
  const specifier = new URL('./stand-in/testing/stand-in-internet.js', import.meta.url).href;
  return ((await import(specifier)) as { StandInInternet: typeof StandInInternet }).StandInInternet;
}

const BOOTS = Number(process.env.BENCH_BOOTS ?? 5);
const WAKES = Number(process.env.BENCH_WAKES ?? 10);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 40);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10_000);
const LOADS = Number(process.env.BENCH_LOADS ?? 20);

const root = path.join(os.tmpdir(), `lazyboy-bench-desktop-${process.pid}`);
mkdirSync(root, { recursive: true, mode: 0o755 });
chmodSync(root, 0o755);
const manager = new ScreenManager({
  computerId: 'bench-desktop',
  homeDir: path.join(root, 'home'),
  runtimeDir: path.join(root, 'run'),
  // Away from the low numbers tests and other computers on this host tend to use.
  displayBase: findFreeDisplayBase(2, 500 + (process.pid % 400)),
  screenLimit: 2,
});
const PAGE = `<!doctype html><title>bench</title><p id="n">0</p>
    <button onclick="n.textContent = Number(n.textContent) + 1">Add one</button>
    ${Array.from({ length: 40 }, (_, i) => `<a href="#${i}">link ${i}</a>`).join(' ')}`;
// Click + observe runs on a data: URL: a screen's island cannot reach a server on the host's loopback, and a
// page that needs no network measures the same browser work with islands or without.
const url = `data:text/html,${encodeURIComponent(PAGE)}`;
const servePage: http.RequestListener = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(PAGE);
};

let internet: StandInInternet | undefined;
try {
  const boots: number[] = [];
  for (let i = 0; i < BOOTS; i++) {
    const start = performance.now();
    await manager.ensureScreen(0, { profileKey: 'bench' });
    boots.push(performance.now() - start);
    if (i < BOOTS - 1) await manager.stopScreen(0);
  }

  const wakes: number[] = [];
  for (let i = 0; i < WAKES; i++) {
    await manager.suspend();
    const start = performance.now();
    await manager.wake();
    wakes.push(performance.now() - start);
  }

  await manager.ensureScreen(1, { profileKey: 'bench-2' });
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const extraMiB = manager.privateMemoryBytes(1) / 1024 / 1024;
  const extraProcesses = manager.processIds(1).length;

  await manager.ensureScreen(0, { profileKey: 'bench' });
  const browser = await manager.connectBrowser(0);
  const clicks: number[] = [];
  const loads: number[] = [];
  try {
    const context = browser.contexts()[0]!;
    const page = context.pages()[0] ?? (await context.newPage());
    const numbered = new NumberedPage(page);
    const first = await numbered.navigate(url);
    const button = first.elements.find((e) => e.name === 'Add one')!.id;
    for (let i = 0; i < CLICKS; i++) {
      const start = performance.now();
      await numbered.click({ element: button });
      await numbered.observe();
      clicks.push(performance.now() - start);
    }
    if ((await page.textContent('#n')) !== String(CLICKS)) throw new Error('clicks were lost');

    // Only islands have an egress proxy, and only root makes islands (and the stand-in internet).
    if (manager.endpoints(0)?.network === 'island') {
      internet = await (await loadStandInInternet()).start();
      const site = await internet.serve(servePage, 8080);
      for (let i = 0; i < LOADS; i++) {
        const start = performance.now();
        const response = await page.goto(`${site.url}?${i}`, { waitUntil: 'load' });
        loads.push(performance.now() - start);
        if (response?.status() !== 200) throw new Error(`page load through the proxy answered ${response?.status()}`);
      }
      site.close();
    }
  } finally {
    await browser.close();
  }

  console.log(`display cold boot to CDP-ready, median of ${BOOTS}: ${(median(boots) / 1000).toFixed(2)} s (target ≤ 2.0 s)`);
  console.log(`wake from suspend until CDP answers, median of ${WAKES}: ${median(wakes).toFixed(0)} ms (target ≤ 100 ms)`);
  console.log(`private memory of an extra idle display after ${IDLE_MS / 1000} s: ${extraMiB.toFixed(0)} MiB (target ≤ 250 MiB)`);
  console.log(`processes of an extra idle display: ${extraProcesses}`);
  console.log(`click by number + observe, median of ${CLICKS}: ${median(clicks).toFixed(0)} ms (target ≤ 150 ms)`);
  if (loads.length > 0) {
    console.log(`page load through the egress proxy (stand-in internet), median of ${LOADS}: ${median(loads).toFixed(0)} ms`);
  } else {
    console.log('page load through the egress proxy: skipped (not root: the screens share the host network)');
  }
} finally {
  await manager.stop();
  internet?.stop();
  rmSync(root, { recursive: true, force: true });
}
