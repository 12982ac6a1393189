import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chownSync, existsSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { until } from '../../../../test/support/index.js';
import { BrowserTabs } from '../browser/browser-tabs.js';
import { BROWSER_STATE_FILE } from '../browser/browser-state-file.js';
import { testDisplayBase } from '../testing/display-base.js';
import { scanProcesses } from '../testing/process-scan.js';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { startLoginSite } from '../testing/login-site.js';
import type { TestSite } from '../testing/test-site.js';
import { sendSignal } from '../process/signals.js';
import { profileDirFor } from './chromium.js';
import { ScreenManager, type ScreenManagerOptions } from './screen-manager.js';

const asRoot = process.getuid?.() === 0;
const PROFILE = 'agent-keeper';

/** The tab strip as Chromium tells it: urls in order and the index of the one in front. */
async function tabStrip(manager: ScreenManager, slot = 0): Promise<{ urls: string[]; active: number }> {
  const answer = (await manager.cdp(slot).call('Target.getTargets', { filter: [{ type: 'tab' }] })) as {
    targetInfos: { url: string; embedderData?: { tabStripIndex?: number; tabActive?: boolean } }[];
  };
  const tabs = [...answer.targetInfos].sort(
    (a, b) => (a.embedderData?.tabStripIndex ?? 0) - (b.embedderData?.tabStripIndex ?? 0),
  );
  return { urls: tabs.map((tab) => tab.url), active: tabs.findIndex((tab) => tab.embedderData?.tabActive === true) };
}

async function withBrowser<T>(manager: ScreenManager, use: (browser: Browser) => Promise<T>): Promise<T> {
  const browser = await manager.connectBrowser(0);
  try {
    return await use(browser);
  } finally {
    await browser.close();
  }
}

function defaultContext(browser: Browser) {
  const context = browser.contexts()[0];
  if (!context) throw new Error('Chromium has no default context');
  return context;
}

/** Signs in as `name` in the first tab and opens the notes in a second one; the account tab stays in front. */
async function signInWithTwoTabs(manager: ScreenManager, siteUrl: string, name: string): Promise<void> {
  await withBrowser(manager, async (browser) => {
    const context = defaultContext(browser);
    const account = context.pages()[0] ?? (await context.newPage());
    await account.goto(`${siteUrl}login`);
    await account.fill('input[name=name]', name);
    await Promise.all([account.waitForURL(`${siteUrl}account`), account.click('button')]);
    expect(await account.textContent('#who')).toBe(`logged in as ${name}`);
    const notes = await context.newPage();
    await notes.goto(`${siteUrl}notes`);
    await account.bringToFront();
    // The cookie is a session cookie: the very kind Chromium's own cookie database does not keep.
    const jar = (await manager.cdp(0).call('Storage.getCookies')) as { cookies: { name: string; session: boolean }[] };
    expect(jar.cookies.filter((c) => c.name === 'session').map((c) => c.session)).toEqual([true]);
  });
}

/** What the restored account tab shows, once it has loaded: the site's answer to the cookie it was sent. */
async function restoredAccountText(manager: ScreenManager, siteUrl: string): Promise<string> {
  return withBrowser(manager, async (browser) => {
    const account = await until('the restored account tab', () =>
      defaultContext(browser)
        .pages()
        .find((page: Page) => page.url() === `${siteUrl}account`),
    );
    await account.waitForLoadState('domcontentloaded');
    return (await account.textContent('#who')) ?? '';
  });
}

describe('a screen keeps its browser’s tabs and session cookies (real Xvfb, Chromium)', () => {
  const root = tempDirPath('lazyboy-browser-state-');
  const logLines: string[] = [];
  const options: ScreenManagerOptions = {
    computerId: 'browser-state-spec',
    homeDir: path.join(root, 'home'),
    runtimeDir: path.join(root, 'run'),
    displayBase: testDisplayBase(1, 400),
    screenLimit: 1,
    stopGraceMs: 3_000,
    log: (line) => logLines.push(line),
  };
  const profileDir = profileDirFor(options.homeDir, PROFILE);
  const stateFile = path.join(profileDir, BROWSER_STATE_FILE);
  let site: TestSite;
  const managers: ScreenManager[] = [];
  /** A manager as a worker makes it; `intervalMs` how often it looks at the browser's state. */
  const managerWith = (intervalMs: number): ScreenManager => {
    const manager = new ScreenManager({ ...options, browserStateIntervalMs: intervalMs });
    managers.push(manager);
    return manager;
  };

  beforeAll(async () => {
    makeWalkableDir(root);
    site = await startLoginSite();
  });

  afterAll(async () => {
    // Every screen is stopped by now, so each manager (the abandoned ones too: their islands and egress
    // proxy) can go, one after another.
    for (const manager of managers) await manager.dispose();
    await site?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('brings both tabs back after a graceful stop, the front one in front, still signed in', async () => {
    // Looks far apart: only the save at stop can have kept the state.
    const manager = managerWith(600_000);
    await manager.ensureScreen(0, { profileKey: PROFILE });
    await signInWithTwoTabs(manager, site.url, 'Ada');

    await manager.stopScreen(0);

    const file = statSync(stateFile);
    expect(file.mode & 0o777).toBe(0o600);
    if (asRoot) expect([file.uid, file.gid]).toEqual([manager.user?.uid, manager.user?.gid]);
    expect(readFileSync(stateFile, 'utf8')).toContain('"session"');

    await manager.ensureScreen(0, { profileKey: PROFILE });

    expect(await tabStrip(manager)).toEqual({ urls: [`${site.url}account`, `${site.url}notes`], active: 0 });
    expect(await restoredAccountText(manager, site.url)).toBe('logged in as Ada');
    expect(logLines.some((line) => /browser state restored: 2 tab\(s\), 1 cookie\(s\)/.test(line))).toBe(true);

    // The agent's tabs meet the browser where its screen shows it, and its element numbers work there.
    await withBrowser(manager, async (browser) => {
      const tabs = new BrowserTabs(defaultContext(browser));
      const observed = await tabs.observe();
      expect(observed.url).toBe(`${site.url}account`);
      const link = observed.elements.find((element) => element.name === 'Notes');
      expect(link).toBeDefined();
      const { numbered } = await tabs.activePage();
      await numbered.click({ element: link?.id ?? 0 });
      expect((await tabs.observe()).url).toBe(`${site.url}notes`);
      expect((await tabs.list()).map((tab) => tab.url).sort()).toEqual([`${site.url}notes`, `${site.url}notes`]);
    });
    await manager.stopScreen(0);
  });

  /**
   * SIGKILL for every process of the desktop, as when the worker's machine or pod dies under it: no save
   * at stop can run. The manager is then simply forgotten, as its worker would be, and a new one boots
   * the same profile.
   */
  async function killAndBootAgain(killed: ScreenManager): Promise<ScreenManager> {
    const pids = killed.processIds();
    // A helper process (Chromium's, XFCE's) may have ended on its own since the list was read.
    for (const pid of pids) sendSignal(pid, 'SIGKILL');
    await until('the killed desktop to be gone', () => scanProcesses().every((p) => !pids.includes(p.pid) || p.state === 'Z'));
    const successor = managerWith(600_000);
    await successor.ensureScreen(0, { profileKey: PROFILE });
    return successor;
  }

  it('keeps what the periodic save wrote when the browser and its desktop are killed outright', async () => {
    rmSync(stateFile, { force: true });
    const killed = managerWith(300);
    await killed.ensureScreen(0, { profileKey: PROFILE });
    await signInWithTwoTabs(killed, site.url, 'Grace');
    await until('the periodic save of both tabs and the cookie', () => {
      const text = existsSync(stateFile) ? readFileSync(stateFile, 'utf8') : '';
      return text.includes(`${site.url}notes`) && text.includes('"session"') && text.includes('"activeTab":0');
    });

    const successor = await killAndBootAgain(killed);

    expect(killed.state(0).state).toBe('error');
    expect(await tabStrip(successor)).toEqual({ urls: [`${site.url}account`, `${site.url}notes`], active: 0 });
    expect(await restoredAccountText(successor, site.url)).toBe('logged in as Grace');
    await successor.stopScreen(0);
  });

  it('keeps what it saved at suspend when a suspended computer is killed', async () => {
    rmSync(stateFile, { force: true });
    // Looks far apart: only the save at suspend can have kept the state.
    const suspended = managerWith(600_000);
    await suspended.ensureScreen(0, { profileKey: PROFILE });
    await signInWithTwoTabs(suspended, site.url, 'Barbara');
    await suspended.suspend();
    expect(readFileSync(stateFile, 'utf8')).toContain(`${site.url}notes`);

    const successor = await killAndBootAgain(suspended);

    expect(await tabStrip(successor)).toEqual({ urls: [`${site.url}account`, `${site.url}notes`], active: 0 });
    expect(await restoredAccountText(successor, site.url)).toBe('logged in as Barbara');
    await successor.stopScreen(0);
  });

  // Six desktop boots and three sign-ins: more than the suite's default 60 s on a loaded CI machine.
  it('starts clean when the saved state is corrupt or not a plain file of the profile', async () => {
    const manager = managerWith(600_000);
    const cases: [string, () => void][] = [
      ['not JSON', () => writeFileSync(stateFile, '{"version":1,"tabs":[{"url":"http://', { mode: 0o600 })],
      ['another format', () => writeFileSync(stateFile, JSON.stringify({ version: 99, tabs: [], cookies: [] }), { mode: 0o600 })],
      [
        'a link',
        () => {
          writeFileSync(path.join(root, 'elsewhere.json'), readFileSync(stateFile));
          rmSync(stateFile);
          symlinkSync(path.join(root, 'elsewhere.json'), stateFile);
        },
      ],
    ];
    for (const [what, corrupt] of cases) {
      // A good state first (signed in, two tabs), then spoilt.
      await manager.ensureScreen(0, { profileKey: PROFILE });
      await signInWithTwoTabs(manager, site.url, 'Linus');
      await manager.stopScreen(0);
      corrupt();
      const owner = manager.user;
      if (asRoot && owner && what !== 'a link') chownSync(stateFile, owner.uid, owner.gid);
      logLines.length = 0;

      await manager.ensureScreen(0, { profileKey: PROFILE });

      expect([what, manager.state(0).state]).toEqual([what, 'running']);
      expect([what, await tabStrip(manager)]).toEqual([what, { urls: ['about:blank'], active: 0 }]);
      expect(logLines.some((line) => line.includes('the saved browser state is not used'))).toBe(true);
      const shown = await withBrowser(manager, async (browser) => {
        const page = defaultContext(browser).pages()[0];
        await page?.goto(`${site.url}account`);
        return page?.textContent('#who');
      });
      expect([what, shown]).toEqual([what, 'not logged in']);
      await manager.stopScreen(0);
      // The clean browser's own state replaced the spoilt file at stop.
      expect([what, statSync(stateFile).isFile(), readFileSync(stateFile, 'utf8')]).toEqual([
        what,
        true,
        expect.stringContaining('"version":1'),
      ]);
    }
  }, 240_000);
});
