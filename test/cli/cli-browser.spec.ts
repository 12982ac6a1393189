import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { cliFixture } from './cli-harness.js';
import { sleep } from '../support/index.js';

const SHOP = `<!doctype html><title>Tiny shop</title><h1>Tiny shop</h1>
  <p id="status">Cart is empty</p>
  <button onclick="document.getElementById('status').textContent='1 item in cart'">Add to cart</button>`;
const LOGIN = `<!doctype html><title>Sign in to Tiny shop</title><h1>Please sign in</h1><input placeholder="One-time code">`;

const lastToolText = (r: ReceivedRequest) => String(r.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');

/** A private X display for the headed browser of a hand-off. */
async function startXvfb(): Promise<{ display: string; stop(): void }> {
  let n = 90;
  while (existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`)) n++;
  const xvfb: ChildProcess = spawn('Xvfb', [`:${n}`, '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !existsSync(`/tmp/.X11-unix/X${n}`); i++) await sleep(50);
  return { display: `:${n}`, stop: () => void xvfb.kill() };
}

describe('lazyboy run with the browser (real Chromium)', () => {
  let site: http.Server;
  let base: string;
  let xvfb: { display: string; stop(): void };

  beforeAll(async () => {
    site = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(req.url === '/login' ? LOGIN : SHOP);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    xvfb = await startXvfb();
  });

  afterAll(async () => {
    xvfb.stop();
    await new Promise((r) => site.close(r));
  });

  it('navigates, clicks by element number and reports done', async () => {
    const f = await cliFixture((r): Turn => {
      const result = lastToolText(r);
      if (result.includes('1 item in cart'))
        return { toolCalls: [{ name: 'report_done', arguments: { summary: 'Added one item.' } }] };
      const button = /\[(\d+)\] button "Add to cart"/.exec(result)?.[1];
      if (button) return { toolCalls: [{ name: 'browser', arguments: { action: 'click', element: Number(button) } }] };
      return { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: base } }] };
    });
    try {
      const { code, stdout, stderr } = await f.run(['run', 'add something to my cart'], { DISPLAY: '' });
      expect({ code, stderr }).toMatchObject({ code: 0 });
      expect(stdout).toContain('Added one item.');
      expect(lastToolText(f.server.requests[1]!)).toContain('Cart is empty');
      expect(lastToolText(f.server.requests[2]!)).toContain('1 item in cart');
    } finally {
      await f.close();
    }
  }, 60_000);

  const handoffScript = (r: ReceivedRequest): Turn => {
    const result = lastToolText(r);
    if (result.includes('Fresh observation after the hand-off'))
      return { toolCalls: [{ name: 'report_done', arguments: { summary: 'Signed in.' } }] };
    if (result.includes('Please sign in'))
      return {
        toolCalls: [{ name: 'browser_handoff', arguments: { reason: 'The shop asks for a one-time code', timeout_secs: 2 } }],
      };
    return { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${base}/login` } }] };
  };

  it('hands the browser over headed, resumes on Enter and observes the same page again', async () => {
    const f = await cliFixture(handoffScript);
    try {
      const { code, stdout, stderr } = await f.run(['run', 'check my orders'], {
        DISPLAY: xvfb.display,
        LAZYBOY_HANDOFF_AUTO: '1',
      });
      expect({ code, stderr }).toMatchObject({ code: 0 });
      expect(stdout).toContain('Signed in.');
      expect(stderr).toContain('〔請接手瀏覽器〕The shop asks for a one-time code');
      expect(stderr).toContain('[Browser handoff] The shop asks for a one-time code');
      // Relaunched headed on the same URL: the fresh observation shows the login page again.
      const resumed = lastToolText(f.server.requests.at(-1)!);
      expect(resumed).toContain('handed back control');
      expect(resumed).toContain(`Page: Sign in to Tiny shop — ${base}/login`);
    } finally {
      await f.close();
    }
  }, 60_000);

  it('fails closed when the hand-off is aborted or nobody answers in time', async () => {
    for (const extra of [{ LAZYBOY_HANDOFF_AUTO: 'abort' }, {}]) {
      const f = await cliFixture(handoffScript);
      try {
        // Standard input stays open and silent: only the 2 s timeout can end the wait.
        const run = f.start(['run', 'check my orders'], { DISPLAY: xvfb.display, ...extra });
        const code = await run.exit;
        expect(code).toBe(1);
        expect(run.output().stderr).toMatch(
          extra.LAZYBOY_HANDOFF_AUTO ? /blocked: the user aborted the handoff/ : /blocked: nobody answered the handoff in time/,
        );
        expect(f.server.requests).toHaveLength(2);
      } finally {
        await f.close();
      }
    }
  }, 90_000);
});
