import { testDisplayBase } from '../testing/display-base.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestSite, type TestSite } from '../testing/test-site.js';
import { ScreenManager } from '../display/screen-manager.js';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { RecorderStateError } from './errors.js';
import { displayFrameSource } from './frames.js';
import { selectKeyFrames } from './key-frames.js';
import { renderRecording } from './render.js';
import { SkillRecorder, type SkillRecorderOptions } from './skill-recorder.js';
import type { SemanticEvent } from './types.js';
import { sleep, until } from '../../../../test/support/index.js';

const PASSWORD = 'Tr0ub4dor&3-horse';
const EMAIL = 'ada@example.com';

const PAGES: Record<string, string> = {
  '/login': `<!doctype html><title>Sign in</title><body style="font:20px sans-serif">
    <h1>Sign in</h1>
    <form name="login" method="post" action="/login">
      <label>Email <input id="email" name="email" type="email"></label><br>
      <label>Password <input id="password" name="password" type="password" autocomplete="current-password"></label><br>
      <label>One-time code <input id="code" name="otp" type="text"></label><br>
      <button id="signin" type="submit">Sign in</button>
    </form>`,
  '/dashboard': `<!doctype html><title>Dashboard</title><body style="font:20px sans-serif">
    <h1>Dashboard</h1>
    <label>Month <select id="month"><option value="1">January</option><option value="3">March</option></select></label>
    <button data-testid="export" onclick="document.getElementById('done').hidden = false">Export report</button>
    <button id="reports" onclick="history.pushState({}, '', '/dashboard/reports'); document.title = 'Reports'">Reports</button>
    <div id="done" hidden style="height:600px;background:#0a5;color:#fff">Report exported</div>`,
  '/idle': `<!doctype html><title>Idle</title><body style="background:#fff;font:20px sans-serif"><p>Nothing happens here.</p>`,
  '/flip': `<!doctype html><title>Flip</title><body style="margin:0"><div id="b" style="height:100vh"></div>
    <script>let i = 0; const colours = ['#000', '#fff', '#c00', '#00c'];
    setInterval(() => document.getElementById('b').style.background = colours[i++ % 4], 150)</script>`,
};

describe('SkillRecorder (real Xvfb screen with Chromium over CDP)', () => {
  const root = tempDirPath('lazyboy-recorder-');
  const manager = new ScreenManager({
    computerId: 'recorder-spec',
    homeDir: path.join(root, 'home'),
    runtimeDir: path.join(root, 'run'),
    displayBase: testDisplayBase(1, 280),
    screenLimit: 1,
    stopGraceMs: 2_000,
    log: () => undefined,
  });
  const serve: http.RequestListener = (request, response) => {
    if (request.method === 'POST' && request.url === '/login') {
      request.resume();
      request.on('end', () => response.writeHead(303, { location: '/dashboard' }).end());
      return;
    }
    const body = PAGES[request.url ?? ''];
    response.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(body ?? 'not found');
  };
  let site: TestSite;
  let base = '';
  let driver: Browser;
  let page: Page;

  /** A recorder with fast sampling; the frames come from the real display. */
  const recorder = (options: SkillRecorderOptions = {}) =>
    SkillRecorder.overCdp(() => manager.connectBrowser(0), {
      frames: displayFrameSource(manager, 0),
      sampleIntervalMs: 300,
      inputQuietMs: 600,
      ...options,
    });

  beforeAll(async () => {
    makeWalkableDir(root);
    site = await startTestSite(serve);
    base = site.url.replace(/\/$/, '');
    await manager.ensureScreen(0);
    // The "person": a separate CDP client driving the same window the recorder watches.
    driver = await manager.connectBrowser(0);
    const context = driver.contexts()[0];
    if (!context) throw new Error('Chromium has no default context');
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    await driver?.close();
    await manager.dispose();
    await site?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('records a demonstration as ordered semantic events, with the password never recorded', async () => {
    await page.goto(`${base}/login`);
    const rec = await recorder();
    await rec.start({ goal: 'Export the March report' });

    await page.click('#email');
    await page.keyboard.type(EMAIL, { delay: 20 });
    await page.click('#password');
    await page.keyboard.type(PASSWORD, { delay: 20 });
    await page.click('#code');
    await page.keyboard.type('492817', { delay: 20 });
    await page.click('#signin');
    await page.waitForURL(`${base}/dashboard`);
    await until('the dashboard navigation', () =>
      rec.eventsSoFar().some((e) => e.kind === 'navigation' && e.title === 'Dashboard'),
    );
    await page.selectOption('#month', { label: 'March' });
    await page.click('[data-testid=export]');
    await page.click('#reports');
    await until('the SPA navigation', () => rec.eventsSoFar().some((e) => e.kind === 'navigation' && e.spa));
    const recording = await rec.stop();

    expect(recording.events.map(summary)).toEqual([
      'navigation initial Sign in',
      `input textbox "Email" "${EMAIL}"`,
      'input textbox "Password" redacted password',
      'input textbox "One-time code" redacted sensitive',
      'click button "Sign in" #signin',
      'submit form "login" by "Sign in"',
      'navigation Dashboard',
      'select select "Month" "March"',
      'click button "Export report" [data-testid="export"]',
      'click button "Reports" #reports',
      'navigation spa Reports',
    ]);
    expect(recording.events.map((e) => e.seq)).toEqual(recording.events.map((_, i) => i + 1));
    expect(recording.events.every((e) => e.tab === 1)).toBe(true);
    expect(recording.events.find((e) => e.kind === 'navigation' && e.spa)?.url).toBe(`${base}/dashboard/reports`);

    const json = JSON.stringify(recording);
    expect(json).toContain(EMAIL);
    expect(json).not.toContain(PASSWORD);
    expect(json).not.toContain('492817');
    // The frame after the login's navigation, besides the first one.
    expect(recording.frames[0]?.reason).toBe('start');
    expect(recording.frames.some((f) => f.reason === 'navigation')).toBe(true);
    expect(recording.frames.every((f) => f.png.subarray(1, 4).toString() === 'PNG')).toBe(true);

    const text = renderRecording(recording);
    expect(text).toContain('Goal: Export the March report');
    expect(text).toContain(`2. typed "${EMAIL}" into textbox "Email" [#email] on Sign in (${base}/login)`);
    expect(text).toContain(`3. filled password field "Password" (not recorded) on Sign in (${base}/login)`);
    expect(text).toContain('8. selected "March" in select "Month" [#month] on Dashboard');
    expect(text).not.toContain(PASSWORD);
    expect(selectKeyFrames(recording).length).toBeLessThanOrEqual(8);
  });

  it('adds no frames while the screen is idle, and one when it visibly changes', async () => {
    await page.goto(`${base}/idle`);
    const rec = await recorder();
    await rec.start({ goal: 'idle' });
    await until('four samples', () => rec.progress().samples >= 4);
    expect(rec.progress().frames).toBe(1);

    await page.evaluate(() => (document.body.style.background = '#123'));
    const samples = rec.progress().samples;
    await until('a frame after the change', () => rec.progress().frames >= 2);
    await until('three more samples', () => rec.progress().samples >= samples + 3);
    const recording = await rec.stop();

    expect(recording.frames.map((f) => f.reason)).toEqual(['start', 'change']);
    expect(recording.frames[1]?.difference).toBeGreaterThan(1);
    expect(recording.events.map(summary)).toEqual(['navigation initial Idle']);
  });

  it('keeps at most maxFrames frames however much the screen changes', async () => {
    await page.goto(`${base}/flip`);
    const rec = await recorder({ maxFrames: 3, sampleIntervalMs: 200, minFrameDifference: 0.1 });
    await rec.start({ goal: 'flip' });
    await until('the cap', () => rec.progress().frames >= 3);
    // A navigation asks for a frame of its own: refused at the cap.
    await page.goto(`${base}/idle`);
    await until('a refused frame', () => rec.progress().framesDropped >= 1);
    const recording = await rec.stop();

    expect(recording.frames).toHaveLength(3);
    expect(recording.framesDropped).toBeGreaterThanOrEqual(1);
    expect(recording.events.map(summary)).toEqual(['navigation initial Flip', 'navigation Idle']);
  });

  it('leaves the page working and records nothing after stop()', async () => {
    await page.goto(`${base}/login`);
    const rec = await recorder({ frames: undefined });
    await rec.start({ goal: 'stop' });
    await page.click('#email');
    await page.keyboard.type('first@example.co', { delay: 20 });
    const recording = await rec.stop();
    const count = recording.events.length;

    // The typing burst was still pending at stop: stop() collected it.
    expect(recording.events.map(summary)).toEqual(['navigation initial Sign in', 'input textbox "Email" "first@example.co"']);
    expect(
      await page.evaluate(() => Object.getOwnPropertyNames(window).filter((name) => name.startsWith('__lazyboyRecord'))),
    ).toEqual([]);
    expect(rec.progress()).toMatchObject({ recording: false, events: 0, frames: 0 });
    await expect(rec.stop()).rejects.toThrow(RecorderStateError);
    await expect(rec.start({ goal: 'again' })).rejects.toThrow(RecorderStateError);

    await page.keyboard.type('m', { delay: 20 });
    await page.click('#signin');
    await page.waitForURL(`${base}/dashboard`);
    await page.click('#reports');
    expect(await page.title()).toBe('Reports');
    await sleep(800);
    expect(recording.events).toHaveLength(count);
    expect(await page.evaluate(() => Object.getOwnPropertyNames(window).filter((n) => n.startsWith('__lazyboy')))).toEqual([]);
  });
});

/** One line per event with what the assertions care about. */
function summary(event: SemanticEvent): string {
  switch (event.kind) {
    case 'navigation':
      return ['navigation', event.initial ? 'initial' : '', event.spa ? 'spa' : '', event.title].filter(Boolean).join(' ');
    case 'input':
      return event.redacted
        ? `input ${event.target.role} "${event.target.name.trim()}" redacted ${event.secret}`
        : `input ${event.target.role} "${event.target.name.trim()}" "${event.value}"`;
    case 'click':
      return `click ${event.target.role} "${event.target.name}" ${event.target.hint}`;
    case 'select':
      return `select ${event.target.role} "${event.target.name.trim()}" "${event.label}"`;
    case 'submit':
      return `submit ${event.form.role} "${event.form.name}" by "${event.submitter?.name ?? ''}"`;
    case 'tab':
      return `tab ${event.action}`;
  }
}
