import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { NativeObserver } from '../native/observer.js';
import { processGone, readProcStat } from '../process/proc-table.js';
import { runCommand } from '../process/run-command.js';
import { testDisplayBase } from '../testing/display-base.js';
import { StandInInternet } from '../testing/stand-in-internet.js';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { findComputerProcesses } from './desktop-processes.js';
import { ScreenManager } from './screen-manager.js';
import { until } from '../../../../test/support/index.js';

// Two computers whose homes lie in one shared homes directory and whose desktops run as ONE user, as a
// static pool's workers do (uid 1000 in every container, one homes volume): file modes keep nothing apart,
// only the desktop's sandbox does. Run as root, both managers are given the same account; otherwise both
// run as the current user anyway.

const SECRET = `secret-${process.pid}-${Date.now()}`;
const root = tempDirPath('lazyboy-shared-homes-').replace(/^\/tmp\//, '/var/tmp/');
const homesDir = path.join(root, 'homes');
const homeA = path.join(homesDir, 'key-a');
const homeB = path.join(homesDir, 'key-b');
const sharedUser = 'lazyboy-shared-desktop';

function computer(id: string, homeDir: string, session: 'window-manager' | 'xfce', offset: number): ScreenManager {
  return new ScreenManager({
    computerId: id,
    homeDir,
    runtimeDir: tempDirPath(`lazyboy-shared-run-${id}-`),
    displayBase: testDisplayBase(1, offset),
    screenLimit: 1,
    stopGraceMs: 2_000,
    userName: sharedUser,
    session,
    desktopSandbox: { hiddenDirs: [homesDir] },
    log: () => undefined,
  });
}

describe('the desktop sandbox: two computers, one homes directory, one user', () => {
  const a = computer('shared-a', homeA, 'window-manager', 620);
  const b = computer('shared-b', homeB, 'xfce', 640);
  let internet: StandInInternet | undefined;
  let site: { url: string; close(): void };
  let browser: Browser;
  let page: Page;

  /** What B's session started at log-in wrote (an autostart entry of B's own home: a program the person's session runs). */
  const probeOut = (name: string) => path.join(homeB, 'probe', name);

  beforeAll(async () => {
    makeWalkableDir(root);
    mkdirSync(homesDir, { recursive: true, mode: 0o755 });
    await a.ensureScreen(0);
    const user = a.user!;
    // A plants its secret the way its own programs would: a file of the shared user, 0600, in A's home.
    writeFileSync(path.join(homeA, 'secret'), SECRET, { mode: 0o600 });
    chownSync(path.join(homeA, 'secret'), user.uid, user.gid);

    // B's own files, and an autostart entry its XFCE session runs when it starts (owned by B once it boots).
    mkdirSync(path.join(homeB, '.config', 'autostart'), { recursive: true });
    mkdirSync(path.join(homeB, 'probe'), { recursive: true });
    writeFileSync(path.join(homeB, 'mine.txt'), 'b-own-file');
    writeFileSync(
      path.join(homeB, 'probe.sh'),
      [
        '#!/bin/sh',
        `out=${path.join(homeB, 'probe')}`,
        `ls -a ${homesDir} > $out/homes.txt 2>&1`,
        `cat ${path.join(homeA, 'secret')} > $out/secret.txt 2>&1`,
        `cat ${path.join(homeB, 'mine.txt')} > $out/mine.txt 2>&1`,
        // A's processes name A's home on their command lines (Chromium's profile): none may be visible.
        // (The bracket keeps grep's own command line from matching.)
        `cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' '\\n' | grep -c '${homesDir}/[k]ey-a' > $out/a-processes.txt`,
        `cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' '\\n' | grep -c '${homesDir}/[k]ey-b' > $out/b-processes.txt`,
        'echo done > $out/done',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    writeFileSync(
      path.join(homeB, '.config', 'autostart', 'probe.desktop'),
      `[Desktop Entry]\nType=Application\nName=probe\nExec=/bin/sh ${path.join(homeB, 'probe.sh')}\n`,
    );
    await b.ensureScreen(0);
    browser = await b.connectBrowser(0);
    page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());

    // Screens with a network island reach only public hosts through the egress proxy; without (not root) the host's loopback.
    const handler: http.RequestListener = (_req, res) => res.end('<title>outside</title><body>an http page</body>');
    if (process.getuid?.() === 0) {
      internet = await StandInInternet.start();
      site = await internet.serve(handler);
    } else {
      const server = http.createServer(handler);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      site = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
    }
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([a.dispose(), b.dispose()]);
    site?.close();
    internet?.stop();
    const left = findComputerProcesses({ homesDir });
    rmSync(root, { recursive: true, force: true });
    expect(left).toEqual([]);
  }, 60_000);

  it("keeps A's home out of B's browser: no file:// page of it, no listing of the homes", async () => {
    await expect(page.goto(`file://${path.join(homeA, 'secret')}`)).rejects.toThrow(/ERR_FILE_NOT_FOUND/);
    // Chromium shows its error page next.
    await page.waitForURL(/^chrome-error:/);
    await page.waitForLoadState();
    expect(await page.content()).not.toContain(SECRET);

    await page.goto(`file://${homesDir}/`);
    const listing = await page.locator('body').innerText();
    expect(listing).toContain('key-b');
    expect(listing).not.toContain('key-a');
  });

  it('still serves B its own files at their own path, and the web', async () => {
    await page.goto(`file://${path.join(homeB, 'mine.txt')}`);
    expect(await page.locator('body').innerText()).toBe('b-own-file');

    await page.goto(site.url);
    expect(await page.title()).toBe('outside');
  });

  it("keeps A's home and processes out of what B's session starts (its autostart program)", async () => {
    await until('B’s session to run its autostart program', () => existsSync(probeOut('done')), { timeoutMs: 30_000 });
    expect(readFileSync(probeOut('homes.txt'), 'utf8').split('\n').filter(Boolean).sort()).toEqual(['.', '..', 'key-b']);
    expect(readFileSync(probeOut('secret.txt'), 'utf8')).toMatch(/No such file or directory/);
    expect(readFileSync(probeOut('mine.txt'), 'utf8')).toBe('b-own-file');
    expect(readFileSync(probeOut('a-processes.txt'), 'utf8').trim()).toBe('0');
    // Its own session's processes (the probe itself) it does see, so /proc was readable.
    expect(Number(readFileSync(probeOut('b-processes.txt'), 'utf8'))).toBeGreaterThan(0);
    // Outside the sandbox A's Chromium is right there, so the count above is not vacuous.
    expect(findComputerProcesses({ home: homeA }).length).toBeGreaterThan(0);
  });

  it('keeps the worker’s tools working on the sandboxed desktop: screenshot, AT-SPI, suspend and wake', async () => {
    await page.goto('data:text/html,<body style="background:rgb(255,0,0)"></body>');
    const env = b.clientEnv(0);
    const runAs = b.clientRunAs(0);
    await until(
      'the page to show on the screen',
      async () => {
        const pixel = await runCommand('import', ['-window', 'root', '-crop', '1x1+640+500', 'txt:-'], { env, runAs });
        return /#FFFF00000000|#FF0000\b/i.test(pixel.stdout);
      },
      { timeoutMs: 15_000, everyMs: 250 },
    );

    const observation = await new NativeObserver(b).observe(0);
    expect(observation.elements.length).toBeGreaterThan(0);

    const pids = b.processIds(0);
    await b.suspend();
    expect(b.processIds(0).every((pid) => processGone(pid) || readProcStat(pid)?.state === 'T')).toBe(true);
    await b.wake();
    expect(await page.evaluate(() => 6 * 7)).toBe(42);
    expect(pids.length).toBeGreaterThan(3);
  }, 60_000);

  it('leaves nothing of either desktop running once stopped', async () => {
    await browser.close();
    await Promise.all([a.stop(), b.stop()]);
    expect(findComputerProcesses({ homesDir })).toEqual([]);
  }, 60_000);
});
