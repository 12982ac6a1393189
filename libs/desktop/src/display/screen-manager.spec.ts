import { testDisplayBase } from '../testing/display-base.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { scanProcesses, processState, processUid } from '../testing/process-scan.js';
import { readRfbBanner } from '../testing/rfb.js';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { startTestSite, type TestSite } from '../testing/test-site.js';
import { ScreenManager } from './screen-manager.js';
import { xLockFile, xSocketFile } from './display-numbers.js';
import { ComputerUnavailableError, ProfileInUseError, ScreenBootError, ScreenLimitError } from './errors.js';
import { sleep } from '../../../../test/support/index.js';

const asRoot = process.getuid?.() === 0;
/** Zombies have finished; they only wait for a parent (here often the slow-reaping pid 1) to collect them. */
const live = (pid: number): boolean => processState(pid) !== undefined && processState(pid) !== 'Z';
const SCREENS = 4;

async function firstPage(browser: Browser) {
  const context = browser.contexts()[0];
  if (!context) throw new Error('Chromium has no default context');
  return context.pages()[0] ?? (await context.newPage());
}

describe('ScreenManager (real Xvfb, xfwm4, Chromium, x11vnc)', () => {
  const root = tempDirPath('lazyboy-desktop-');
  const runtimeDir = path.join(root, 'run');
  const homeDir = path.join(root, 'home');
  const displayBase = testDisplayBase(SCREENS, 200);
  const displays = Array.from({ length: SCREENS }, (_, slot) => displayBase + slot + 1);
  const logLines: string[] = [];
  const manager = new ScreenManager({
    computerId: 'desktop-spec',
    homeDir,
    runtimeDir,
    displayBase,
    screenLimit: SCREENS,
    stopGraceMs: 3_000,
    log: (line) => logLines.push(line),
  });
  let site: TestSite;
  let siteUrl = '';

  /** A CDP client of its own over the slot's pipe; closing it only disconnects, the Chromium keeps running. */
  async function withBrowser<T>(slot: number, use: (browser: Browser) => Promise<T>): Promise<T> {
    const browser = await manager.connectBrowser(slot);
    try {
      return await use(browser);
    } finally {
      await browser.close();
    }
  }

  const cdpAnswers = (slot: number): Promise<boolean> => manager.cdp(slot).answers();

  beforeAll(async () => {
    makeWalkableDir(root);
    site = await startTestSite((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end('<!doctype html><title>storage probe</title><p>probe</p>');
    });
    siteUrl = site.url;
  });

  afterAll(async () => {
    await manager.dispose();
    await site?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('boots a screen whose Chromium answers CDP and opens pages through playwright-core', async () => {
    const status = manager.startScreen(0);
    expect(status.state).toBe('booting');

    const endpoints = await manager.waitReady(0);

    expect(endpoints.display).toBe(`:${displays[0]}`);
    expect(manager.state(0)).toEqual({ state: 'running', endpoints });
    expect(await cdpAnswers(0)).toBe(true);
    expect(JSON.parse(readFileSync(manager.readyMarker, 'utf8'))).toMatchObject({ vncSocket: endpoints.vncSocket });
    expect(endpoints.network).toBe(asRoot ? 'island' : 'host');
    const health = manager.health();
    expect(health.ready).toBe(true);
    expect(health.screens[0]?.processes.map((p) => [p.name, p.alive])).toEqual([
      ['xvfb', true],
      ['dbus', true],
      ['window-manager', true],
      ['chromium', true],
      ['x11vnc', true],
    ]);

    const preferences = JSON.parse(readFileSync(path.join(endpoints.profileDir, 'Default', 'Preferences'), 'utf8')) as {
      browser?: { custom_chrome_frame?: boolean };
      credentials_enable_service?: boolean;
      profile?: { password_manager_enabled?: boolean };
    };
    expect(preferences.browser?.custom_chrome_frame).toBe(false);
    // No password manager: nothing the vault types is offered for saving in the profile.
    expect(preferences.credentials_enable_service).toBe(false);
    expect(preferences.profile?.password_manager_enabled).toBe(false);

    const title = await withBrowser(0, async (browser) => {
      const page = await firstPage(browser);
      await page.goto('data:text/html,<title>Hello desktop</title><body style="background:%23c03030"><h1>hi</h1></body>');
      return page.title();
    });
    expect(title).toBe('Hello desktop');
    // Asking again for a running screen answers with the same endpoints.
    expect(await manager.ensureScreen(0)).toEqual(endpoints);
  });

  (asRoot ? it : it.skip)('runs the whole desktop as the computer’s own unprivileged user, with the sandbox on', () => {
    const user = manager.user;
    expect(user?.dedicated).toBe(true);
    expect(user?.name).toBe('lazyboy-desktop-spec');
    const uid = user?.uid ?? 0;
    expect(uid).toBeGreaterThan(0);
    for (const process of manager.health().screens[0]?.processes ?? []) {
      expect([process.name, processUid(process.pid)]).toEqual([process.name, uid]);
    }
    const home = statSync(homeDir);
    expect([home.uid, home.mode & 0o777]).toEqual([uid, 0o700]);
    const pidOf = (name: string): number => manager.health().screens[0]?.processes.find((p) => p.name === name)?.pid ?? 0;
    const cmdline = readFileSync(`/proc/${pidOf('chromium')}/cmdline`, 'utf8');
    expect(cmdline).not.toContain('--no-sandbox');
    expect(logLines.join('\n')).not.toContain('--no-sandbox');
    // The worker's own environment (tokens, database URLs) never reaches the desktop. (Chromium overwrites
    // its own environment block with its process title, so the window manager's is read instead.)
    const environ = readFileSync(`/proc/${pidOf('window-manager')}/environ`, 'utf8').split('\0');
    expect(environ).toContain(`HOME=${homeDir}`);
    expect(environ.some((entry) => entry.startsWith('DATABASE_URL=') || entry.startsWith('LAZYBOY_CONTROL_TOKEN='))).toBe(false);
  });

  it("speaks RFB on a Unix socket in the screen's 0700 directory, and on no TCP port", async () => {
    const endpoints = manager.endpoints(0);
    if (!endpoints) throw new Error('slot 0 is not up');

    expect(await readRfbBanner(endpoints.vncSocket)).toMatch(/^RFB 003\.00\d\n$/);
    expect(statSync(path.dirname(endpoints.vncSocket)).mode & 0o777).toBe(0o700);
    const x11vnc = manager.health().screens[0]?.processes.find((p) => p.name === 'x11vnc')?.pid;
    const tcp = spawnSync('ss', ['-Hltnp'], { encoding: 'utf8' }).stdout;
    expect(tcp).not.toContain(`pid=${x11vnc},`);
  });

  it('takes a non-blank screenshot of the display with the X cookie', () => {
    const endpoints = manager.endpoints(0);
    if (!endpoints) throw new Error('slot 0 is not up');

    const png = execFileSync('import', ['-window', 'root', '-display', endpoints.display, 'png:-'], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', XAUTHORITY: endpoints.xauthority },
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const colours = spawnSync('identify', ['-format', '%k', 'png:-'], { input: png, encoding: 'utf8' });
    expect(Number(colours.stdout)).toBeGreaterThan(1);

    // Without the cookie the display refuses the client.
    const refused = spawnSync('import', ['-window', 'root', '-display', endpoints.display, 'png:-'], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', XAUTHORITY: path.join(root, 'no-such-cookie') },
    });
    expect(refused.status).not.toBe(0);
  });

  it('runs three screens at once, each Chromium with its own profile', async () => {
    const [one, two] = await Promise.all([
      manager.ensureScreen(1, { profileKey: 'alice' }),
      manager.ensureScreen(2, { profileKey: 'bob' }),
    ]);
    const zero = manager.endpoints(0);
    if (!zero) throw new Error('slot 0 is not up');
    const all = [zero, one, two];
    expect(new Set(all.map((e) => e.display)).size).toBe(3);
    expect(new Set(all.map((e) => e.profileDir)).size).toBe(3);
    expect(new Set(all.map((e) => e.vncSocket)).size).toBe(3);
    expect(() => manager.startScreen(3, { profileKey: 'alice' })).toThrow(ProfileInUseError);

    await withBrowser(0, async (browser) => {
      const page = await firstPage(browser);
      await page.goto(siteUrl);
      await page.evaluate(() => {
        localStorage.setItem('secret', 'screen-0');
        document.cookie = 'who=screen-0; max-age=3600';
      });
      expect(await page.evaluate(() => [localStorage.getItem('secret'), document.cookie])).toEqual(['screen-0', 'who=screen-0']);
    });
    for (const other of [one, two]) {
      const seen = await withBrowser(other.slot, async (browser) => {
        const page = await firstPage(browser);
        await page.goto(siteUrl);
        return page.evaluate(() => [localStorage.getItem('secret'), document.cookie]);
      });
      expect(seen).toEqual([null, '']);
    }
  });

  it('puts a screen whose browser dies into error, and boots it again on request', async () => {
    const before = manager.endpoints(1);
    const chromiumPid = manager
      .health()
      .screens.find((s) => s.slot === 1)
      ?.processes.find((p) => p.name === 'chromium')?.pid;
    if (!before || !chromiumPid) throw new Error('slot 1 is not up');

    process.kill(chromiumPid, 'SIGKILL');
    for (let i = 0; i < 200 && manager.state(1).state !== 'error'; i += 1) await sleep(25);

    const failed = manager.state(1);
    expect(failed.state === 'error' ? failed.error : failed.state).toContain('chromium exited (signal SIGKILL)');
    const again = await manager.ensureScreen(1, { profileKey: 'alice' });
    expect(again.display).toBe(before.display);
    expect(await cdpAnswers(again.slot)).toBe(true);
  });

  it('reports a screen that cannot boot as an error with the reason', async () => {
    const display = displays[3] ?? 0;
    // Our own pid stands in for a foreign X server holding the display.
    writeFileSync(xLockFile(display), `${String(process.pid).padStart(10)}\n`);
    try {
      await expect(manager.ensureScreen(3)).rejects.toThrow(ScreenBootError);
      const status = manager.state(3);
      expect(status.state).toBe('error');
      expect(status.state === 'error' ? status.error : '').toContain(`held by X server pid ${process.pid}`);
    } finally {
      rmSync(xLockFile(display), { force: true });
    }
    await manager.stopScreen(3);
    expect(manager.state(3)).toEqual({ state: 'stopped' });
    expect(() => manager.startScreen(SCREENS)).toThrow(ScreenLimitError);
  });

  it('suspends every desktop process (state T) and wakes them with CDP answering again', async () => {
    const pids = manager.processIds();
    expect(pids.length).toBeGreaterThan(10);

    await manager.suspend();

    expect(manager.state(0).state).toBe('suspended');
    expect(
      pids
        .filter((pid) => live(pid) && processState(pid) !== 'T')
        .map((pid) => `${pid} ${processState(pid)} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').slice(0, 200)}`),
    ).toEqual([]);
    if (asRoot) {
      const uid = manager.user?.uid;
      const running = scanProcesses().filter((p) => p.uid === uid && p.state !== 'T');
      expect(running.map((p) => p.cmdline)).toEqual([]);
    }
    expect(() => manager.startScreen(3)).toThrow(ComputerUnavailableError);

    await manager.wake();

    for (const slot of [0, 1, 2]) expect(manager.state(slot).state).toBe('running');
    expect(pids.filter((pid) => processState(pid) === 'T')).toEqual([]);
    expect(await cdpAnswers(0)).toBe(true);
    const sum = await withBrowser(0, async (browser) => (await firstPage(browser)).evaluate(() => 20 + 22));
    expect(sum).toBe(42);
  });

  it('stops one screen without touching the others', async () => {
    const display = `:${displays[2]}`;
    const pids = manager.processIds(2);

    await manager.stopScreen(2);

    expect(manager.state(2)).toEqual({ state: 'stopped' });
    expect(
      pids.filter(live).map((pid) => `${pid} ${processState(pid)} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').slice(0, 200)}`),
    ).toEqual([]);
    const mentioning = scanProcesses().filter(
      (p) => p.cmdline.includes(`${display} `) || p.environ.includes(`DISPLAY=${display}\n`),
    );
    expect(mentioning.map((p) => p.cmdline)).toEqual([]);
    expect(existsSync(xLockFile(displays[2] ?? 0))).toBe(false);
    expect(manager.state(1).state).toBe('running');
    expect(await cdpAnswers(1)).toBe(true);
  });

  it('stops the computer leaving no process, lock or socket behind', async () => {
    const uid = manager.user?.uid;
    await manager.suspend();

    await manager.stop();

    const left = scanProcesses().filter(
      (p) =>
        (asRoot && p.uid === uid) ||
        p.cmdline.includes(runtimeDir) ||
        p.cmdline.includes(homeDir) ||
        p.environ.includes(runtimeDir) ||
        displays.some((display) => p.cmdline.includes(`:${display} `) || p.environ.includes(`DISPLAY=:${display}\n`)),
    );
    expect(left.map((p) => `${p.pid} ${p.cmdline}`)).toEqual([]);
    for (const display of displays) {
      expect([existsSync(xLockFile(display)), existsSync(xSocketFile(display))]).toEqual([false, false]);
    }
    expect(existsSync(manager.readyMarker)).toBe(false);
    expect(manager.health()).toMatchObject({ suspended: false, ready: false, screens: [] });
  });

  it('removes its runtime directory once disposed, and prepares afresh for a later screen', async () => {
    await manager.ensureScreen(0);
    await manager.dispose();
    expect(existsSync(runtimeDir)).toBe(false);
    await manager.ensureScreen(0);
    expect(existsSync(runtimeDir)).toBe(true);
    await manager.dispose();
  });

  (asRoot ? it : it.skip)('removes the /tmp folders its own user’s Chromium made once disposed', async () => {
    await manager.ensureScreen(0);
    const uid = manager.user?.uid;
    const chromiumFolders = () =>
      readdirSync('/tmp').filter((name) => {
        if (!/org\.chromium\.Chromium\./.test(name)) return false;
        try {
          return statSync(path.join('/tmp', name)).uid === uid;
        } catch {
          return false; // gone meanwhile
        }
      });
    expect(chromiumFolders().length).toBeGreaterThan(0);
    await manager.dispose();
    expect(chromiumFolders()).toEqual([]);
  });
});

describe('ScreenManager after a worker crash', () => {
  const crashLog: string[] = [];
  const root = tempDirPath('lazyboy-desktop-crash-');
  const options = {
    computerId: 'desktop-spec',
    homeDir: path.join(root, 'home'),
    runtimeDir: path.join(root, 'run'),
    displayBase: testDisplayBase(1, 250),
    screenLimit: 1,
    stopGraceMs: 3_000,
    log: (line: string) => crashLog.push(line),
  };
  const successor = new ScreenManager(options);

  beforeAll(() => makeWalkableDir(root));

  afterAll(async () => {
    await successor.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('clears the desktop an earlier worker left running in the same runtime directory', async () => {
    // The first manager is simply forgotten, as when its worker process dies.
    const abandoned = new ScreenManager(options);
    await abandoned.ensureScreen(0);
    const orphans = abandoned.processIds();
    const orphanBrowser = abandoned.health().screens[0]?.processes.find((p) => p.name === 'chromium')?.pid;

    await successor.ensureScreen(0);

    // Chromium hides its environment markers; it must be found anyway, or the new browser would wait on the
    // old one's profile lock.
    const reaped = crashLog.find((line) => line.includes('leftover process'));
    expect(reaped).toMatch(new RegExp(`[ ,]${orphanBrowser}(,|$)`));
    expect(orphans.filter(live)).toEqual([]);
    expect(await successor.cdp(0).answers()).toBe(true);
  });
});
