import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { ScreenManager } from '../display/screen-manager.js';
import { testDisplayBase } from '../testing/display-base.js';
import { StandInInternet } from '../testing/stand-in-internet.js';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { SandboxedShell } from '../workspace/sandboxed-shell.js';
import type { EgressPolicy } from '@lazyboy/contracts';
import type { EgressRefusal } from './egress-proxy.js';

const asRoot = process.getuid?.() === 0;
const describeAsRoot = asRoot ? describe : describe.skip;

/** What the page's own script can tell about a URL: the status it read, or how the request failed. */
async function pageFetch(page: Page, url: string): Promise<string> {
  return page.evaluate(async (target) => {
    try {
      const response = await fetch(target, { signal: AbortSignal.timeout(5_000) });
      return `status ${response.status}: ${(await response.text()).slice(0, 60)}`;
    } catch (error) {
      return `failed: ${(error as Error).name}`;
    }
  }, url);
}

async function pageWebSocket(page: Page, url: string): Promise<string> {
  return page.evaluate(
    (target) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(target);
        socket.onopen = () => resolve('open');
        socket.onerror = () => resolve('error');
        setTimeout(() => resolve('timeout'), 5_000);
      }),
    url,
  );
}

describeAsRoot('a screen is a network island (real Chromium, shell and egress proxy)', () => {
  const root = tempDirPath('lazyboy-island-');
  const refusals: EgressRefusal[] = [];
  const manager = new ScreenManager({
    computerId: 'island-spec',
    homeDir: path.join(root, 'home'),
    runtimeDir: path.join(root, 'run'),
    displayBase: testDisplayBase(2, 700),
    screenLimit: 2,
    stopGraceMs: 3_000,
    log: () => undefined,
    onEgressRefused: (refusal) => refusals.push(refusal),
  });
  let internet: StandInInternet;
  let lan: StandInInternet;
  let site: { url: string; close(): void };
  let lanSite: { url: string; close(): void };
  /** A service of the host on loopback, as the API, Postgres or another computer's worker would be. */
  const hostService = http.createServer((_req, res) => res.end('host secret'));
  let hostUrl = '';
  let page: Page;
  let shell: SandboxedShell;

  beforeAll(async () => {
    makeWalkableDir(root);
    internet = await StandInInternet.start();
    lan = await StandInInternet.start({ lan: true });
    site = await internet.serveSite({ '/': '<!doctype html><title>outside</title><p id="p">from the internet</p>' }, 8080);
    lanSite = await lan.serveSite({ '/': '<p>lan app</p>' }, 8080);
    await new Promise<void>((resolve) => hostService.listen(0, '127.0.0.1', resolve));
    hostUrl = `http://127.0.0.1:${(hostService.address() as AddressInfo).port}/`;
    await manager.ensureScreen(0);
    await manager.ensureScreen(1);
    const browser = await manager.connectBrowser(0);
    const context = browser.contexts()[0]!;
    page = context.pages()[0] ?? (await context.newPage());
    shell = new SandboxedShell({
      user: manager.user!,
      homeDir: manager.homeDir,
      logDir: path.join(root, 'shell-logs'),
      displayEnv: () => manager.clientEnv(1),
      displayRunAs: () => manager.clientRunAs(1),
      hiddenDirs: [path.dirname(manager.homeDir)],
    });
  }, 120_000);

  afterAll(async () => {
    await shell?.stopAll();
    await manager.dispose();
    site?.close();
    lanSite?.close();
    internet?.stop();
    lan?.stop();
    hostService.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('reaches a public site through the egress proxy, from the page and from the shell', async () => {
    await page.goto(site.url);
    expect(await page.textContent('#p')).toBe('from the internet');
    expect(await pageFetch(page, site.url)).toMatch(/^status 200/);
    const curl = await shell.run(`curl -sS --max-time 10 ${site.url}`);
    expect(curl.outputTail).toContain('from the internet');
    expect(curl.exitCode).toBe(0);
  });

  it("cannot reach the host's loopback services from the page, a WebSocket or the shell", async () => {
    expect(await pageFetch(page, hostUrl)).toMatch(/^failed/);
    expect(await pageWebSocket(page, hostUrl.replace('http', 'ws'))).not.toBe('open');
    // In a tab of its own: Chromium's error page commits after goto gave up and reloads itself when it
    // thinks the network is back, and a navigation in the middle of a later page script destroys its context.
    const probe = await page.context().newPage();
    try {
      const navigation = await probe.goto(hostUrl).then(
        async (response) => `loaded: ${(await response?.text()) ?? ''}`,
        (error: Error) => error.message,
      );
      expect(navigation).toMatch(/net::ERR_CONNECTION_REFUSED/);
    } finally {
      await probe.close();
    }
    // Through the proxy by the host's own addresses: refused by policy, whatever the address.
    const curl = await shell.run(
      `curl -sS --max-time 10 ${hostUrl}; curl -sS --max-time 10 --noproxy '' http://localhost:${new URL(hostUrl).port}/`,
    );
    expect(curl.outputTail).not.toContain('host secret');
  });

  it('refuses the LAN and link-local addresses by policy, and logs each refusal', async () => {
    const before = refusals.length;
    const curl = await shell.run(
      `curl -sS --max-time 10 ${lanSite.url}; curl -sS --max-time 10 http://169.254.169.254/latest/meta-data/`,
    );
    expect(curl.outputTail).toContain('refused');
    expect(curl.outputTail).not.toContain('lan app');
    expect(await pageFetch(page, lanSite.url)).not.toContain('lan app');
    const logged = refusals.slice(before).map((r) => `${r.origin} ${r.host} ${r.reason}`);
    expect(logged).toEqual(
      expect.arrayContaining([`screen 1 ${lan.address} private-network`, 'screen 1 169.254.169.254 link-local']),
    );
    expect(logged.some((line) => line.startsWith('screen 0') && line.includes('private-network'))).toBe(true);
  });

  it('opens no TCP port anywhere: the only listener in an island is the egress proxy', async () => {
    const runAs = manager.clientRunAs(0)!;
    const listening = spawnSync('nsenter', [`--net=${runAs.netns}`, 'ss', '-Hltn'], { encoding: 'utf8' }).stdout;
    const ports = listening
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[3]);
    expect(ports).toEqual(['127.0.0.1:3128']);
    // And in the host's namespace, no process of the computer's user listens on anything.
    const uid = manager.user!.uid;
    const hostListeners = spawnSync('ss', ['-Hltnpe'], { encoding: 'utf8' }).stdout;
    expect(hostListeners).not.toMatch(new RegExp(`uid:${uid}\\b`));
  });

  it("keeps one screen's shell from the other screen's display, browser profile and X cookie", async () => {
    const screen0 = manager.clientEnv(0);
    const profile = path.join(manager.homeDir, '.lazyboy', 'chromium', 'screen-0', 'Default', 'Preferences');
    expect(existsSync(profile)).toBe(true);
    writeFileSync(path.join(manager.homeDir, 'visible.txt'), 'shared home file');
    const result = await shell.run(
      [
        `DISPLAY=${screen0['DISPLAY']} XAUTHORITY=${screen0['XAUTHORITY']} xdotool getmouselocation && echo DROVE-OTHER-SCREEN`,
        `cat ${profile} && echo READ-OTHER-PROFILE`,
        `ls ~/.lazyboy/chromium | grep -q screen && echo SAW-PROFILES`,
        `cat ${screen0['XAUTHORITY']} >/dev/null && echo READ-COOKIE`,
        'cat ~/visible.txt',
      ].join('; '),
    );
    expect(result.outputTail).not.toMatch(/DROVE-OTHER-SCREEN|READ-OTHER-PROFILE|SAW-PROFILES|READ-COOKIE/);
    expect(result.outputTail).toContain('shared home file');
  });
  it("follows the operator's policy: the LAN when allowed, only the allow-list's hosts when one is set", async () => {
    // The same two servers, from the shell of a computer of each other policy (one screen each).
    const download = async (policy: EgressPolicy, name: string): Promise<string> => {
      const other = new ScreenManager({
        computerId: `island-${name}`,
        homeDir: path.join(root, `home-${name}`),
        runtimeDir: path.join(root, `run-${name}`),
        displayBase: testDisplayBase(1, 740),
        screenLimit: 1,
        stopGraceMs: 3_000,
        log: () => undefined,
        egressPolicy: policy,
      });
      let otherShell: SandboxedShell | undefined;
      try {
        await other.ensureScreen(0);
        otherShell = new SandboxedShell({
          user: other.user!,
          homeDir: other.homeDir,
          logDir: path.join(root, `shell-logs-${name}`),
          displayEnv: () => other.clientEnv(0),
          displayRunAs: () => other.clientRunAs(0),
          hiddenDirs: [path.dirname(other.homeDir)],
        });
        const run = await otherShell.run(
          `curl -sS --max-time 10 ${lanSite.url}; echo; curl -sS --max-time 10 ${site.url} | grep -o 'from the internet'`,
        );
        return run.outputTail;
      } finally {
        await otherShell?.stopAll();
        await other.dispose();
      }
    };
    const lanAllowed = await download({ privateNetworks: 'allow', allowedDomains: null }, 'lan');
    expect(lanAllowed).toContain('lan app');
    expect(lanAllowed).toContain('from the internet');
    // An allow-list that names neither server: both refused, whatever the LAN setting.
    const listed = await download({ privateNetworks: 'allow', allowedDomains: ['lazyboy.invalid'] }, 'listed');
    expect(listed).not.toContain('lan app');
    expect(listed).not.toContain('from the internet');
    expect(listed).toContain('refused');
  }, 120_000);
});
