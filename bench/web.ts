// Benchmark of the web app in a real Chromium against the whole stack (Postgres, Redis, the API and the
// web server in their own processes as `lazyboy up` runs them, a real worker desktop; only the model is
// scripted). It prints:
//  1. opening a running computer's panel → the first non-blank VNC frame (the page's own performance
//     marks: panel mounted → noVNC canvas shows non-blank pixels), BENCH_PANEL_OPENS times;
//  2. a run event → its text in the DOM: the agent's answer message, from its Message.createdAt (stamped by
//     Postgres as the executor writes it, just before it is published) to the moment a MutationObserver in
//     the page sees the text (one host clock), BENCH_MESSAGES times.
// Targets: medians ≤ 1.5 s and ≤ 100 ms. Run with `npm run bench:web` (it builds what it needs).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { tail } from '@lazyboy/localstack';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { signUp, asPerson } from '../test/support/index.js';
import { addSessionCookie, launchChromium } from '../test/support/browser.js';
import { startProductStack, type ProductStack } from './stack-processes.js';
import { median, percentile } from './stats.js';

const PANEL_OPENS = Number(process.env.BENCH_PANEL_OPENS ?? 10);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 30);
const DATABASE = 'lazyboy_bench_web';

function script(request: ReceivedRequest): Turn {
  const user = request.messages.findLast((m) => m.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : '';
  const echo = /Echo (\d+)/.exec(text);
  return { text: echo ? `Echo reply ${echo[1]}` : 'Hello.' };
}

const ms = (v: number) => `${v.toFixed(0)} ms`;
let stack: ProductStack | null = null;
let browser: Browser | null = null;

try {
  stack = await startProductStack({ prefix: 'lazyboy-bench-web-', database: DATABASE, script });
  const { api, web } = stack;
  const user = await signUp(api.url);
  const call = asPerson(api.url, user.cookie).call;
  const agent = await call<{ id: string }>('POST', `/api/workspaces/${user.workspaceId}/agents`, { name: 'Bench' });
  const chat = await call<{ id: string }>('POST', `/api/agents/${agent.id}/chats`, { title: 'Bench' });
  await call('POST', `/api/agents/${agent.id}/computer/boot`);

  browser = await launchChromium();
  const context = await browser.newContext({ baseURL: web.url, viewport: { width: 1400, height: 900 } });
  await addSessionCookie(context, user.cookie, web.url);
  const page = await context.newPage();
  await page.goto(`/agents/${agent.id}?chat=${chat.id}`);
  await page.getByTestId('composer').waitFor();

  // 1. Panel open → first non-blank frame.
  const panel: number[] = [];
  for (let i = 0; i < PANEL_OPENS; i++) {
    await page.getByTestId('computer-toggle').click();
    await page.locator('[data-testid="computer-panel"][data-first-frame="true"]').waitFor({ timeout: 60_000 });
    panel.push(
      await page.evaluate(() => {
        const measure = performance.measure('panel', 'lazyboy:panel-open', 'lazyboy:first-frame');
        performance.clearMarks();
        performance.clearMeasures();
        return measure.duration;
      }),
    );
    await page.getByTestId('computer-close').click();
    await page.getByTestId('computer-panel').waitFor({ state: 'detached' });
  }
  console.log(
    `computer panel open → first non-blank VNC frame: median ${ms(median(panel))}, p90 ${ms(percentile(panel, 90))}, ` +
      `max ${ms(Math.max(...panel))} over ${panel.length} opens (target median ≤ 1.5 s)`,
  );

  // 2. A run event (the agent's answer) → its text in the DOM.
  await page.evaluate(() => {
    const seen = new Map<string, number>();
    (window as unknown as { lazyboySeen: Map<string, number> }).lazyboySeen = seen;
    new MutationObserver(() => {
      const now = performance.timeOrigin + performance.now();
      for (const node of document.querySelectorAll('[data-testid="message"][data-role="assistant"]')) {
        const text = node.textContent ?? '';
        const match = /Echo reply \d+/.exec(text);
        if (match && !seen.has(match[0])) seen.set(match[0], now);
      }
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
  const toDom: number[] = [];
  for (let n = 1; n <= MESSAGES; n++) {
    const reply = `Echo reply ${n}`;
    await call('POST', `/api/chats/${chat.id}/messages`, {
      text: `Echo ${n}`,
      clientNonce: `bench-${randomBytes(8).toString('hex')}`,
    });
    const seenAt = await page.waitForFunction(
      (wanted) => (window as unknown as { lazyboySeen: Map<string, number> }).lazyboySeen.get(wanted) ?? null,
      reply,
      { timeout: 30_000, polling: 'raf' },
    );
    const seen = (await seenAt.jsonValue()) as number;
    const messages = await call<{ items: { text: string; createdAt: string }[] }>(
      'GET',
      `/api/chats/${chat.id}/messages?limit=5`,
    );
    const created = Date.parse(messages.items.find((m) => m.text === reply)!.createdAt);
    toDom.push(seen - created);
  }
  console.log(
    `run event (the agent's answer) → its text in the DOM: median ${ms(median(toDom))}, p90 ${ms(percentile(toDom, 90))}, ` +
      `max ${ms(Math.max(...toDom))} over ${toDom.length} answers (target median ≤ 100 ms)`,
  );
} catch (error) {
  console.error(error);
  if (stack)
    console.error(
      `web log (tail):\n${tail(path.join(stack.root, 'web.log'))}\nAPI log (tail):\n${tail(path.join(stack.root, 'api.log'))}`,
    );
  process.exitCode = 1;
} finally {
  await browser?.close().catch(() => undefined);
  await stack?.stop();
}
process.exit(process.exitCode ?? 0);
