import type { NativeWindow, Point, Rect } from './types.js';

/** WM_CLASS prefixes (class or instance, lower case) that mark the browser's windows. */
export const BROWSER_CLASSES = ['chromium', 'google-chrome', 'chrome'];

/** A window as the script reports it from _NET_CLIENT_LIST_STACKING (bottom of the stack first). */
export interface RawXWindow {
  xid: number;
  stack: number;
  title: string;
  instance: string;
  wmClass: string;
  pid: number | null;
  x: number;
  y: number;
  width: number;
  height: number;
  /** _NET_FRAME_EXTENTS: left, right, top, bottom. */
  frame: number[];
  viewable: boolean;
  minimized: boolean;
  active: boolean;
  type: string;
}

export function isBrowserWindow(window: Pick<RawXWindow, 'wmClass' | 'instance'>): boolean {
  const names = [window.wmClass.toLowerCase(), window.instance.toLowerCase()];
  return names.some((name) => BROWSER_CLASSES.some((prefix) => name.startsWith(prefix)));
}

/** Visible managed windows, top of the stack first, numbered W1…Wn. */
export function toNativeWindows(raw: RawXWindow[]): NativeWindow[] {
  return raw
    .filter((window) => window.viewable)
    .sort((a, b) => b.stack - a.stack)
    .map((window, index) => {
      const [left = 0, right = 0, top = 0, bottom = 0] = window.frame;
      return {
        id: index + 1,
        xid: window.xid,
        title: window.title,
        wmClass: window.wmClass,
        pid: window.pid ?? undefined,
        type: window.type,
        frame: {
          x: window.x - left,
          y: window.y - top,
          width: window.width + left + right,
          height: window.height + top + bottom,
        },
        active: window.active,
        minimized: window.minimized,
        browser: isBrowserWindow(window),
      };
    });
}

export function contains(rect: Rect, point: Point): boolean {
  return point.x >= rect.x && point.y >= rect.y && point.x < rect.x + rect.width && point.y < rect.y + rect.height;
}

/**
 * The window a pointer event at `point` lands in: the topmost non-minimized one containing it. Chromium is
 * maximised under every dialog, so "inside Chromium's rectangle" alone would refuse everything.
 */
export function windowAt(windows: NativeWindow[], point: Point): NativeWindow | undefined {
  return windows.find((window) => !window.minimized && window.type !== 'desktop' && contains(window.frame, point));
}

export function centre(rect: Rect): Point {
  return { x: Math.round(rect.x + rect.width / 2), y: Math.round(rect.y + rect.height / 2) };
}
