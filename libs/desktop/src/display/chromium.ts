import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { RunAs } from '../process/run-as.js';
import { fetchJson } from '../process/net.js';
import { ensureOwnedDir, writeOwnedFile } from './owned-paths.js';

/** Debian's launcher script: it adds the distribution's API keys (no "keys missing" bar) and then execs the browser. */
export const CHROMIUM_COMMAND = '/usr/bin/chromium';

/** Profile keys become directory names: keep them to one harmless path segment. */
export const PROFILE_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Where every Chromium profile of a computer lives; ends with '/' so it only matches what is inside. */
export function profileRootFor(homeDir: string): string {
  return `${path.join(homeDir, '.lazyboy', 'chromium')}/`;
}

export function profileDirFor(homeDir: string, profileKey: string): string {
  return path.join(profileRootFor(homeDir), profileKey);
}

/**
 * Creates the profile on first use with the window manager's title bar instead of Chromium's own frame, and
 * removes a stale DevToolsActivePort so that the port read after launch is this launch's.
 */
export function prepareProfile(profileDir: string, owner: RunAs | undefined, homeDir: string): void {
  ensureOwnedDir(path.join(profileDir, 'Default'), owner, 0o700, homeDir);
  const preferences = path.join(profileDir, 'Default', 'Preferences');
  if (!existsSync(preferences)) {
    writeOwnedFile(preferences, JSON.stringify({ browser: { custom_chrome_frame: false } }), owner);
  }
  rmSync(devToolsPortFile(profileDir), { force: true });
}

export interface ChromiumArgsInput {
  profileDir: string;
  sandbox: boolean;
  width: number;
  height: number;
}

/**
 * Flags every LazyBoy Chromium gets: no background traffic (the machines have no network beyond package
 * registries, and refused connections pile up), no first-run UI, no keyring prompt, no /dev/shm limits.
 */
export const CHROMIUM_QUIET_FLAGS: readonly string[] = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-quic',
  '--password-store=basic',
  '--disable-dev-shm-usage',
];

export function chromiumArgs(input: ChromiumArgsInput): string[] {
  return [
    `--user-data-dir=${input.profileDir}`,
    '--remote-debugging-address=127.0.0.1',
    // Port 0: the kernel picks a free port and Chromium writes it to DevToolsActivePort (no race with
    // other programs grabbing a port we picked).
    '--remote-debugging-port=0',
    ...CHROMIUM_QUIET_FLAGS,
    // A stop that ends in SIGKILL (or a suspended computer that gets stopped) must not greet the next
    // launch with a "restore pages?" bubble.
    '--hide-crash-restore-bubble',
    '--window-position=0,0',
    `--window-size=${input.width},${input.height}`,
    ...(input.sandbox ? [] : ['--no-sandbox']),
    'about:blank',
  ];
}

export function devToolsPortFile(profileDir: string): string {
  return path.join(profileDir, 'DevToolsActivePort');
}

/** The CDP port Chromium reports once its DevTools server listens; undefined until then. */
export function readDevToolsPort(profileDir: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(devToolsPortFile(profileDir), 'utf8');
  } catch {
    return undefined;
  }
  const port = Number(text.split('\n')[0]);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

/** True when the browser's DevTools endpoint answers /json/version with its WebSocket URL. */
export async function cdpAnswers(cdpUrl: string, timeoutMs = 2_000): Promise<boolean> {
  const body = await fetchJson(`${cdpUrl}/json/version`, timeoutMs);
  return typeof body === 'object' && body !== null && 'webSocketDebuggerUrl' in body;
}
