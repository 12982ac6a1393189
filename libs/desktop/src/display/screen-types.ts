import type { ComputerState } from '@lazyboy/contracts';

/**
 * What one running screen is. Nothing of it listens on a port: the browser is driven over its DevTools
 * pipe (`ScreenManager.connectBrowser`), the picture comes from x11vnc's Unix socket.
 */
export interface ScreenEndpoints {
  slot: number;
  /** X display name, e.g. ':1'. */
  display: string;
  displayNumber: number;
  /** x11vnc's RFB socket, in the screen's 0700 directory. */
  vncSocket: string;
  /** `island`: a network namespace of its own, out only through the egress proxy; `host`: the worker's (not root). */
  network: 'island' | 'host';
  profileKey: string;
  /** Chromium's --user-data-dir. */
  profileDir: string;
  /** The X cookie file every client of this display needs (XAUTHORITY). */
  xauthority: string;
  dbusAddress: string;
}

/** The screen's lifecycle, in the same vocabulary as a computer's (`ComputerState`). */
export type ScreenStatus =
  | { state: 'stopped' }
  | { state: 'booting' }
  | { state: 'running'; endpoints: ScreenEndpoints }
  | { state: 'suspended'; endpoints: ScreenEndpoints }
  | { state: 'error'; error: string };

// Fails to compile if the screen states ever drift from the shared computer states.
const _sameVocabulary: [ComputerState] extends [ScreenStatus['state']]
  ? [ScreenStatus['state']] extends [ComputerState]
    ? true
    : never
  : never = true;
void _sameVocabulary;

export type DesktopProcessName = 'xvfb' | 'dbus' | 'window-manager' | 'chromium' | 'x11vnc';

export interface ProcessHealth {
  name: DesktopProcessName;
  pid: number;
  alive: boolean;
  /** Stopped by SIGSTOP (the computer is suspended). */
  frozen: boolean;
}

export interface ScreenHealth {
  slot: number;
  display: string;
  profileKey: string;
  state: ScreenStatus['state'];
  error?: string;
  processes: ProcessHealth[];
}

export interface DesktopHealth {
  computerId: string;
  /** The account the desktop runs as; absent until the first screen has started preparing. */
  user?: { name: string; uid: number; dedicated: boolean };
  suspended: boolean;
  /** Slot 0 is up (its ready marker exists). */
  ready: boolean;
  screens: ScreenHealth[];
}
