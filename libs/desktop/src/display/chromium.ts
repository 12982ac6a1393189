import { existsSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { processGone } from '../process/proc-table.js';
import type { RunAs } from '../process/run-as.js';
import { ensureOwnedDir, writeOwnedFile } from './owned-paths.js';

/** Debian's launcher script: it adds the distribution's API keys (no "keys missing" bar) and then execs the browser. */
export const CHROMIUM_COMMAND = '/usr/bin/chromium';

/** Profile keys become directory names: keep them to one harmless path segment. */
export const PROFILE_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The computer's own folder in its home (browser profiles with their cookies): hidden from the agent's
 * shell and refused to its file tools, so no agent reads another's (or its own) browser sessions.
 */
export const PRIVATE_HOME_DIR = '.lazyboy';

/** Where every Chromium profile of a computer lives; ends with '/' so it only matches what is inside. */
export function profileRootFor(homeDir: string): string {
  return `${path.join(homeDir, PRIVATE_HOME_DIR, 'chromium')}/`;
}

export function profileDirFor(homeDir: string, profileKey: string): string {
  return path.join(profileRootFor(homeDir), profileKey);
}

/**
 * Preferences every launch enforces. No password manager: a saved login typed by the vault must not be
 * offered for saving (a person watching could click "Save", and the profile would keep it in the clear).
 */
const ENFORCED_PREFERENCES = {
  credentials_enable_service: false,
  credentials_enable_autosignin: false,
  // Nor form autocomplete, which would keep a one-time code typed into a plain text field.
  autofill: { enabled: false, profile_enabled: false, credit_card_enabled: false },
  profile: { password_manager_enabled: false },
};

/** Creates the profile on first use with the window manager's title bar instead of Chromium's own frame. */
export function prepareProfile(profileDir: string, owner: RunAs | undefined, homeDir: string): void {
  ensureOwnedDir(path.join(profileDir, 'Default'), owner, 0o700, homeDir);
  const preferences = path.join(profileDir, 'Default', 'Preferences');
  let current: Record<string, unknown> = { browser: { custom_chrome_frame: false } };
  if (existsSync(preferences)) {
    try {
      current = JSON.parse(readFileSync(preferences, 'utf8')) as Record<string, unknown>;
    } catch {
      // A damaged file: Chromium would reset it too.
    }
  }
  const profile = typeof current['profile'] === 'object' && current['profile'] !== null ? current['profile'] : {};
  const next = { ...current, ...ENFORCED_PREFERENCES, profile: { ...profile, ...ENFORCED_PREFERENCES.profile } };
  writeOwnedFile(preferences, JSON.stringify(next), owner);
  removeStaleSingletonLock(profileDir);
}

/**
 * Chromium's profile lock is a symlink to `<host>-<pid>`. A home outlives its worker (a pod deleted and
 * started again on the same volume has another host name), and Chromium cannot tell whether a process on
 * "another computer" still uses the profile, so it refuses to start. Only this worker runs this computer's
 * browsers: a lock of another host, or of a process that is gone, is stale.
 */
function removeStaleSingletonLock(profileDir: string): void {
  let target: string;
  try {
    target = readlinkSync(path.join(profileDir, 'SingletonLock'));
  } catch {
    return; // no lock
  }
  const match = /^(.*)-(\d+)$/.exec(target);
  if (match && match[1] === hostname() && !processGone(Number(match[2]))) return;
  for (const name of ['SingletonLock', 'SingletonSocket', 'SingletonCookie']) {
    rmSync(path.join(profileDir, name), { force: true });
  }
}

export interface ChromiumArgsInput {
  profileDir: string;
  sandbox: boolean;
  width: number;
  height: number;
  /** Every connection but to the island's own loopback goes through this proxy (the egress proxy). */
  proxyServer?: string;
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
    // CDP on fds 3 and 4 instead of a port: a page, the agent's shell or another screen has nothing to
    // connect to, and the worker that holds the pipe is the only client.
    '--remote-debugging-pipe',
    ...(input.proxyServer ? [`--proxy-server=${input.proxyServer}`] : []),
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
