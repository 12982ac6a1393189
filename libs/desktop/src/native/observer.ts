import { SCREEN_HEIGHT, SCREEN_WIDTH } from '../display/screen.js';
import { isFailure, runAtspi, type NativeDisplay } from './helpers.js';
import { NativeElementNotFoundError, NativeHelperError, NativeStaleElementError } from './errors.js';
import type { ElementRef, NativeElement, NativeObservation, NativeWindow } from './types.js';
import { BROWSER_CLASSES, toNativeWindows, type RawXWindow } from './windows.js';

type Extents = [number, number, number, number];

interface RawNode {
  pid: number;
  path: number[];
  role: string;
  name: string;
  text: string | null;
  states: string[];
  extents: Extents;
  actions: string[];
  window: number;
}

interface RawAtspiWindow {
  app: string;
  pid: number;
  name: string;
  role: string;
  extents: Extents;
  active: boolean;
}

interface RawObservation {
  ok: true;
  windows: RawAtspiWindow[];
  nodes: RawNode[];
  truncated: boolean;
  x: RawXWindow[];
}

export interface NativeObserverOptions {
  /** Most elements listed per observation. Default 200. */
  maxElements?: number;
  /** Deepest level of the accessible tree walked below a window. Default 25. */
  maxDepth?: number;
  /** Time the tree walk may take before it stops and reports `truncated`. Default 3 s. */
  budgetMs?: number;
  /** Characters kept of names and text values. Default 200. */
  maxTextChars?: number;
}

/** The latest observation of a slot with what the actor needs to find its elements again. */
export interface ObservedState {
  observation: NativeObservation;
  refs: Map<number, { ref: ElementRef; element: NativeElement; window: NativeWindow | undefined }>;
}

/**
 * Sees the native (non-browser) windows of a screen through AT-SPI: every observation numbers the elements
 * 1…N afresh under a new generation, and only the latest numbering can be acted on.
 */
export class NativeObserver {
  private readonly states = new Map<number, ObservedState>();
  private readonly generations = new Map<number, number>();
  private readonly options: Required<NativeObserverOptions>;

  constructor(
    readonly display: NativeDisplay,
    options: NativeObserverOptions = {},
  ) {
    this.options = {
      maxElements: options.maxElements ?? 200,
      maxDepth: options.maxDepth ?? 25,
      budgetMs: options.budgetMs ?? 3_000,
      maxTextChars: options.maxTextChars ?? 200,
    };
  }

  async observe(slot: number): Promise<NativeObservation> {
    const answer = await runAtspi<RawObservation>(
      this.display,
      slot,
      {
        op: 'observe',
        maxNodes: this.options.maxElements,
        maxDepth: this.options.maxDepth,
        budgetMs: this.options.budgetMs,
        textLimit: this.options.maxTextChars,
        browserClasses: BROWSER_CLASSES,
      },
      this.options.budgetMs + 7_000,
    );
    if (isFailure(answer)) throw new NativeHelperError(`observing native windows failed: ${answer.message}`);

    const managed = toNativeWindows(answer.x);
    // AT-SPI windows the window manager does not list (menus, popups) float above everything else.
    const atspiToWindow = answer.windows.map((raw) => matchWindow(raw, managed));
    const popups: NativeWindow[] = [];
    answer.windows.forEach((raw, index) => {
      if (atspiToWindow[index] !== undefined) return;
      const popup: NativeWindow = {
        id: 0,
        xid: undefined,
        title: raw.name,
        wmClass: raw.app,
        pid: raw.pid,
        type: 'popup',
        frame: toRect(raw.extents),
        active: raw.active,
        minimized: false,
        browser: false,
      };
      popups.push(popup);
      atspiToWindow[index] = popup;
    });
    const windows = [...popups, ...managed];
    windows.forEach((window, index) => (window.id = index + 1));

    const generation = (this.generations.get(slot) ?? 0) + 1;
    this.generations.set(slot, generation);
    const refs: ObservedState['refs'] = new Map();
    const elements = answer.nodes.map((node, index): NativeElement => {
      const window = atspiToWindow[node.window];
      const element: NativeElement = {
        id: index + 1,
        role: node.role,
        name: node.name,
        ...(node.text !== null ? { text: node.text } : {}),
        states: node.states,
        bounds: toRect(node.extents),
        actions: node.actions,
        window: window?.id ?? 0,
      };
      refs.set(element.id, { ref: { pid: node.pid, path: node.path, role: node.role, name: node.name }, element, window });
      return element;
    });
    const observation: NativeObservation = {
      slot,
      generation,
      screen: { width: SCREEN_WIDTH, height: SCREEN_HEIGHT },
      windows,
      elements,
      truncated: answer.truncated,
    };
    this.states.set(slot, { observation, refs });
    return observation;
  }

  /** The latest observation of the slot, if any. */
  latest(slot: number): NativeObservation | undefined {
    return this.states.get(slot)?.observation;
  }

  /**
   * Looks an element number up in the latest observation. A `generation` from an older observation is refused
   * even if the number still exists: numbers are reassigned at every observation.
   */
  element(
    slot: number,
    id: number,
    generation?: number,
  ): { ref: ElementRef; element: NativeElement; window: NativeWindow | undefined } {
    const state = this.states.get(slot);
    if (!state) throw new NativeStaleElementError('nothing has been observed on this screen yet: observe first');
    const current = state.observation.generation;
    if (generation !== undefined && generation !== current) {
      throw new NativeStaleElementError(
        `element ${id} is from observation ${generation}, but the screen was observed again since (observation ${current}): use the latest numbers`,
      );
    }
    const entry = state.refs.get(id);
    if (!entry) throw new NativeElementNotFoundError(`there is no element ${id} in the latest native observation`);
    return entry;
  }

  /** Forgets a slot (its screen stopped). */
  forget(slot: number): void {
    this.states.delete(slot);
  }
}

function toRect([x, y, width, height]: Extents) {
  return { x, y, width, height };
}

/** AT-SPI reports a GTK window's extents including the frame; other toolkits report the client area. */
function matchWindow(raw: RawAtspiWindow, managed: NativeWindow[]): NativeWindow | undefined {
  const candidates = managed.filter((window) => window.pid === raw.pid);
  const near = (a: number, b: number) => Math.abs(a - b) <= 40;
  return (
    candidates.find((w) => near(w.frame.x, raw.extents[0]) && near(w.frame.y, raw.extents[1]) && w.title === raw.name) ??
    candidates.find((w) => near(w.frame.x, raw.extents[0]) && near(w.frame.y, raw.extents[1])) ??
    candidates.find((w) => w.title === raw.name)
  );
}

/** The observation as text for the model. */
export function renderNativeObservation(observation: NativeObservation): string {
  const rect = (r: { x: number; y: number; width: number; height: number }) => `(${r.x},${r.y} ${r.width}×${r.height})`;
  const lines = [
    `Native screen ${observation.screen.width}×${observation.screen.height}, observation ${observation.generation}.`,
    'Windows (top first):',
  ];
  for (const window of observation.windows) {
    const flags = [window.active ? 'active' : '', window.minimized ? 'minimized' : ''].filter(Boolean);
    const kind = window.type === 'normal' ? '' : `${window.type} `;
    lines.push(
      `  W${window.id} ${kind}"${window.title}" [${window.wmClass}] ${rect(window.frame)}${flags.length ? ` ${flags.join(' ')}` : ''}` +
        (window.browser ? ' — BROWSER: its content is not listed here; use the browser tool for anything inside it' : ''),
    );
  }
  if (observation.windows.length === 0) lines.push('  (none)');
  const byWindow = new Map<number, NativeElement[]>();
  for (const element of observation.elements) {
    const list = byWindow.get(element.window) ?? [];
    list.push(element);
    byWindow.set(element.window, list);
  }
  lines.push('Elements:');
  if (observation.elements.length === 0) lines.push('  (no accessible elements outside the browser)');
  for (const [windowId, elements] of byWindow) {
    const window = observation.windows.find((w) => w.id === windowId);
    lines.push(window ? `  in W${window.id} "${window.title}":` : '  in an unlisted window:');
    for (const element of elements) {
      const interesting = element.states.filter((s) => ['focused', 'checked', 'selected', 'expanded', 'editable'].includes(s));
      if (!element.states.includes('enabled') && !element.states.includes('sensitive')) interesting.push('disabled');
      const value = element.text !== undefined ? ` value="${element.text}"` : '';
      lines.push(
        `  [${element.id}] ${element.role} "${element.name}"${value} ${rect(element.bounds)}${interesting.length ? ` ${interesting.join(' ')}` : ''}`,
      );
    }
  }
  if (observation.truncated) lines.push('(tree cut short: close or focus windows to see the rest)');
  lines.push('Act with element numbers from this observation; click_at/drag only for canvases. Observe again after acting.');
  return lines.join('\n');
}
