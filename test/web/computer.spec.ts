import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import type { Page } from 'playwright-core';
import { signUp, contentText, lastPersonText } from '../support/index.js';
import { startTestSite } from '../../libs/desktop/src/testing/test-site.js';
import { WebHarness } from './web-harness.js';

// The computer panel in a real Chromium: the agent's live desktop over noVNC through the web server's
// /view proxy, and a person taking over, clicking in the desktop and handing back while a run waits.

/**
 * `/`: a page that is one big button: wherever a click lands, it presses it (and the server counts).
 * `/type`: a page that is one big text field, whose text the server hears as it is typed.
 */
async function startPressSite(): Promise<{ url: string; presses: () => number; typed: () => string; close(): Promise<void> }> {
  let presses = 0;
  let typed = '';
  let typedAt = 0;
  const site = await startTestSite((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site.invalid');
    if (url.pathname === '/pressed') {
      presses++;
      res.end('ok');
      return;
    }
    if (url.pathname === '/typed') {
      // One request per keystroke, and they may overtake each other: the newest input wins.
      const n = Number(url.searchParams.get('n'));
      if (n > typedAt) {
        typedAt = n;
        typed = url.searchParams.get('v') ?? '';
      }
      res.end('ok');
      return;
    }
    if (url.pathname === '/type') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><title>Type test</title><style>html,body{margin:0;height:100%}
textarea{width:100vw;height:100vh;font-size:32px;box-sizing:border-box}</style>
<script>let n = 0;</script>
<textarea oninput="fetch('/typed?n=' + ++n + '&v=' + encodeURIComponent(this.value))"></textarea>`);
      return;
    }
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>Press test</title><style>html,body{margin:0;height:100%}
button{width:100vw;height:100vh;font-size:48px}</style>
<button id="b" onclick="fetch('/pressed').then(() => { this.textContent = 'Pressed!'; })">Press me</button>`);
  });
  return { url: site.url, presses: () => presses, typed: () => typed, close: site.close };
}

/** Forty different characters: more than x11vnc can map onto its spare keys. */
const CHINESE = '你好世界的一是不了人我在有他這中大來上國個到說們為子和地出道也時年得就那要下以生會';

/** Pixels of the noVNC canvas inside the panel's frame that differ from its first pixel. */
async function nonBlankPixels(page: Page): Promise<number> {
  const frame = page.frameLocator('[data-testid="computer-panel"] iframe');
  return frame
    .getByTestId('vnc-screen')
    .locator('canvas')
    .evaluate((canvas: HTMLCanvasElement) => {
      const ctx = canvas.getContext('2d');
      if (!ctx || canvas.width === 0) return 0;
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let differing = 0;
      for (let i = 0; i < data.length; i += 4 * 97) {
        if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]) differing++;
      }
      return differing;
    });
}

describe('the computer panel in a real browser', () => {
  const harness = new WebHarness();
  let site: Awaited<ReturnType<typeof startPressSite>>;

  function answer(request: ReceivedRequest): Turn {
    const asked = lastPersonText(request);
    const tools = request.messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content));
    if (asked.startsWith('Open the typing page')) {
      if (tools.length === 0)
        return { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${site.url}type` } }] };
      if (tools.length === 1)
        return { toolCalls: [{ name: 'request_takeover', arguments: { reason: 'Please type your greeting.' } }] };
      return { toolCalls: [{ name: 'report_done', arguments: { summary: 'Thanks for typing.' } }] };
    }
    if (!asked.startsWith('Press the big button')) return { text: 'Hello.' };
    if (tools.length === 0) return { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: site.url } }] };
    // Long enough to read what the agent does in the busy line.
    if (tools.length === 1) return { toolCalls: [{ name: 'wait', arguments: { seconds: 3 } }] };
    if (tools.length === 2)
      return { toolCalls: [{ name: 'request_takeover', arguments: { reason: 'Please press the button yourself.' } }] };
    if (tools.length === 3) return { toolCalls: [{ name: 'browser', arguments: { action: 'observe' } }] };
    const pressed = tools.at(-1)!.includes('Pressed!');
    return {
      toolCalls: [
        { name: 'report_done', arguments: { summary: pressed ? 'You pressed it: the page says Pressed!' : 'Not pressed.' } },
      ],
    };
  }

  beforeAll(async () => {
    site = await startPressSite();
    await harness.start((request) => answer(request));
  }, 120_000);

  afterAll(async () => {
    await harness.stop();
    await site?.close();
  }, 120_000);

  it('shows the live desktop, and lets a person take over, click in it and hand back while the run waits', async () => {
    const user = await signUp(harness.service.app.url);
    const agent = await harness.service.call<{ id: string }>(user, 'POST', `/api/workspaces/${user.workspaceId}/agents`, {
      name: 'Ada',
    });
    const { context, page } = await harness.newPage({ cookie: user.cookie });
    try {
      const views: string[] = [];
      page.on('websocket', (socket) => {
        if (new URL(socket.url()).pathname.startsWith('/view/')) views.push(socket.url());
      });
      await page.goto(`/agents/${agent.id}`);
      // Opening the panel boots the computer, connects view-only and shows real desktop pixels.
      await page.getByTestId('computer-toggle').click();
      await page.locator('[data-testid="computer-panel"][data-first-frame="true"]').waitFor({ timeout: 90_000 });
      expect(await nonBlankPixels(page)).toBeGreaterThan(20);

      const composer = page.getByTestId('composer');
      await composer.fill('Press the big button for me');
      await composer.press('Enter');
      // The agent opens the page and waits, worded in the page's language, then asks for a person.
      await page.getByTestId('busy-line').filter({ hasText: '等待 3 秒' }).waitFor({ timeout: 60_000 });
      await page.locator('[data-testid="agent-status"][data-status="acting"]').filter({ hasText: '等待 3 秒' }).first().waitFor();
      await page.locator('[data-testid="pending-question"][data-kind="takeover"]').waitFor({ timeout: 60_000 });

      const screen = page.frameLocator('[data-testid="computer-panel"] iframe').getByTestId('vnc-screen');
      // Watching only: a click in the desktop does not reach it.
      await screen.click();
      await page.waitForTimeout(1_000);
      expect(site.presses()).toBe(0);

      await page.getByTestId('takeover-button').click();
      await page.getByTestId('release-button').waitFor({ timeout: 15_000 });
      // Driving once the web server let this connection's input through (the panel says so).
      await page.locator('[data-testid="computer-panel"][data-driving="true"]').waitFor({ timeout: 15_000 });
      // In control, without reconnecting: the same click presses the button.
      await screen.click();
      const deadline = Date.now() + 10_000;
      while (site.presses() === 0 && Date.now() < deadline) await page.waitForTimeout(100);
      expect(site.presses()).toBe(1);

      await page.getByTestId('release-button').click();
      await page.getByTestId('takeover-button').waitFor({ timeout: 15_000 });
      // The run continues from the screen as the person left it.
      await page
        .locator('[data-testid="message"][data-role="assistant"]')
        .filter({ hasText: 'You pressed it: the page says Pressed!' })
        .waitFor({ timeout: 60_000 });
      expect(site.presses()).toBe(1);
      // Watching, driving and watching again: all on the first connection, the picture never reconnected.
      expect(views).toHaveLength(1);
    } finally {
      await context.close();
    }
  }, 240_000);

  it('pastes the local clipboard into the desktop, Chinese text included, and types through the keyboard button while in control', async () => {
    const user = await signUp(harness.service.app.url);
    const agent = await harness.service.call<{ id: string }>(user, 'POST', `/api/workspaces/${user.workspaceId}/agents`, {
      name: 'Bo',
    });
    const { context, page } = await harness.newPage({ cookie: user.cookie, permissions: ['clipboard-read', 'clipboard-write'] });
    try {
      await page.goto(`/agents/${agent.id}`);
      await page.getByTestId('composer').fill('Open the typing page for me');
      await page.getByTestId('composer').press('Enter');
      await page.locator('[data-testid="pending-question"][data-kind="takeover"]').waitFor({ timeout: 60_000 });
      await page.getByTestId('computer-toggle').click();
      await page.locator('[data-testid="computer-panel"][data-first-frame="true"]').waitFor({ timeout: 60_000 });
      await page.getByTestId('takeover-button').click();
      await page.locator('[data-testid="computer-panel"][data-driving="true"]').waitFor({ timeout: 15_000 });
      // Into the text field that fills the desktop's page, then paste from this computer's clipboard.
      await page.frameLocator('[data-testid="computer-panel"] iframe').getByTestId('vnc-screen').click();
      // Forty different Chinese characters: twice what x11vnc's spare keys could type.
      const pasted = `${CHINESE}, LazyBoy!\n第二行`;
      await page.evaluate((text) => navigator.clipboard.writeText(text), pasted);
      await page.getByTestId('paste-button').click();
      const typed = async (expected: string) => {
        const deadline = Date.now() + 15_000;
        while (site.typed() !== expected && Date.now() < deadline) await page.waitForTimeout(100);
        expect(site.typed()).toBe(expected);
      };
      await typed(pasted);
      // The on-screen keyboard's way in (a phone's keyboard opens for a text field, not for the canvas):
      // Latin keys, a Backspace, then what a phone's Chinese keyboard commits.
      await page.getByTestId('keyboard-button').click();
      await page.keyboard.type(' ok');
      await page.keyboard.press('Backspace');
      await page.keyboard.insertText('再見');
      await typed(`${pasted} o再見`);
      await page.getByTestId('release-button').click();
      await page
        .locator('[data-testid="message"][data-role="assistant"]')
        .filter({ hasText: 'Thanks for typing.' })
        .waitFor({ timeout: 60_000 });
    } finally {
      await context.close();
    }
  }, 240_000);
});
