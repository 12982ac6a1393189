import { existsSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_HIDDEN_DIRS, type SandboxLayout } from '../workspace/sandbox-args.js';
import type { SandboxProc } from '../workspace/sandbox-proc.js';
import { PRIVATE_HOME_DIR } from './chromium.js';
import { xSocketFile } from './display-numbers.js';

/**
 * Runs the desktop's own programs — the session bus and what it activates, the window manager or XFCE
 * session, Chromium, and everything they start (dialogs, terminals, downloads, file:// pages) — inside
 * bubblewrap with the same boundary as the agent's shell: a read-only system, the computer's home
 * read-write, a private /tmp, its own pid namespace (where the kernel allows a /proc of its own:
 * sandbox-proc.ts). For a computer whose home lies in a homes directory
 * other computers' homes share (a static pool's volume) while every desktop runs as one user, where file
 * modes cannot keep one computer out of another. Xvfb, x11vnc and the worker's own helpers (xauth, xprop,
 * xdotool, the AT-SPI reader, screenshots, recordings) need no home and stay outside.
 */
export interface DesktopSandboxOptions {
  /**
   * Hidden as well as /home, /root, /run, the home's parent (the shared homes directory) and the
   * computer's runtime directory (its own folders are bound back): e.g. the worker's shell logs.
   */
  hiddenDirs?: readonly string[];
}

export interface DesktopSandboxInput {
  homeDir: string;
  runtimeDir: string;
  /** XDG_RUNTIME_DIR (the accessibility bus and dconf live here): bound back read-write. */
  xdgRuntimeDir: string;
  hiddenDirs?: readonly string[] | undefined;
  /** The screen's own folder (its cookie and session bus socket) and display; absent before any screen runs. */
  screen?: { dir: string; displayNumber: number; xauthority: string };
  /** The one browser profile bound back inside the home's private folder (Chromium's own sandbox only). */
  profileDir?: string;
  /** Which /proc it gets (`sandboxProcFor` the desktop's user). Default `own`. */
  proc?: SandboxProc;
}

/**
 * The bubblewrap layout of one desktop program. The home's private folder (every screen's browser profile)
 * is covered for all of them; Chromium gets its own profile bound back, so no other program of the desktop
 * (a terminal the person opens) reads the browser's sessions, as with the agent's shell.
 */
export function desktopSandboxLayout(input: DesktopSandboxInput): SandboxLayout {
  const xSocket = input.screen ? xSocketFile(input.screen.displayNumber) : undefined;
  return {
    homeDir: input.homeDir,
    cwd: input.homeDir,
    hiddenDirs: [...DEFAULT_HIDDEN_DIRS, path.dirname(input.homeDir), input.runtimeDir, ...(input.hiddenDirs ?? [])].filter(
      (dir) => existsSync(dir),
    ),
    privateDirs: [PRIVATE_HOME_DIR],
    bindDirs: [input.xdgRuntimeDir, ...(input.screen ? [input.screen.dir] : []), ...(input.profileDir ? [input.profileDir] : [])],
    ...(xSocket && existsSync(xSocket) ? { xSocket } : {}),
    ...(input.screen ? { xauthority: input.screen.xauthority } : {}),
    // The screen's network: its island when there is one (the egress proxy the only way out).
    shareNetwork: true,
    // Keep the group DesktopProcess made, so suspend, wake and stop reach every process inside.
    newSession: false,
    ...(input.proc ? { proc: input.proc } : {}),
  };
}
