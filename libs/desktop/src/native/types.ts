/** A rectangle in screen (desktop) coordinates. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

/** A top-level window, as the window manager lists it (or an AT-SPI-only window such as a popup menu). */
export interface NativeWindow {
  /** W1…Wn, top of the stack first; renumbered with every observation like the elements. */
  id: number;
  /** X window id; undefined for windows only AT-SPI knows (override-redirect popups and menus). */
  xid: number | undefined;
  title: string;
  /** WM_CLASS class, e.g. 'Zenity', 'Chromium'. */
  wmClass: string;
  pid: number | undefined;
  /** _NET_WM_WINDOW_TYPE: normal, dialog, desktop, dock, … ('popup' for AT-SPI-only windows). */
  type: string;
  /** The window including its title bar and borders. */
  frame: Rect;
  active: boolean;
  minimized: boolean;
  /** Chromium's window: its content is the browser tool's, and native actions into it are refused. */
  browser: boolean;
}

/** One numbered thing the model can read or act on. */
export interface NativeElement {
  /** 1…N in reading order; valid only with the observation's generation. */
  id: number;
  role: string;
  name: string;
  /** Current content of editable text (never of password fields). */
  text?: string;
  /** focused, enabled, checked, editable, selected, expanded, showing, … */
  states: string[];
  bounds: Rect;
  /** AT-SPI actions the element offers (click, press, activate, toggle, …). */
  actions: string[];
  /** The id of the window it belongs to. */
  window: number;
}

export interface NativeObservation {
  slot: number;
  /** Increases with every observation of the slot; actions may quote it to be refused when outdated. */
  generation: number;
  screen: { width: number; height: number };
  /** Top of the stack first. */
  windows: NativeWindow[];
  elements: NativeElement[];
  /** True when the node, visit or time bound cut the tree short. */
  truncated: boolean;
}

/** How an element is found again: its application, the child indices leading to it, and what it was. */
export interface ElementRef {
  pid: number;
  path: number[];
  role: string;
  name: string;
}

export type MouseButton = 'left' | 'middle' | 'right';

export type NativeAction =
  /** AT-SPI's default action when the element has one, else a real click at its centre. */
  | { kind: 'click'; element: number; generation?: number; button?: MouseButton; double?: boolean }
  /** Into the element (AT-SPI editable text, else focus + keystrokes) or, without one, the focused window. */
  | { kind: 'type'; element?: number; generation?: number; text: string; clear?: boolean; submit?: boolean }
  /** xdotool key names joined by '+', several separated by spaces: 'ctrl+s', 'Return', 'alt+F4'. */
  | { kind: 'key'; keys: string; element?: number; generation?: number }
  | { kind: 'click_at'; x: number; y: number; button?: MouseButton; double?: boolean }
  | { kind: 'drag'; from: Point; to: Point; button?: MouseButton };

export interface NativeActResult {
  /** 'atspi' when the accessibility interface did it, 'xdotool' for synthesized input. */
  via: 'atspi' | 'xdotool';
  /** What happened, for the model: e.g. 'pressed "OK" (AT-SPI click)'. */
  summary: string;
}
