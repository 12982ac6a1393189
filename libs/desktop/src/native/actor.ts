import { typingTimeMs } from '@lazyboy/contracts';
import { SCREEN_HEIGHT, SCREEN_WIDTH } from '../display/screen.js';
import {
  BrowserWindowError,
  CoordinatesOutOfScreenError,
  NativeActionError,
  NativeHelperError,
  NativeStaleElementError,
} from './errors.js';
import { isFailure, runAtspi, runClient, type AtspiFailure, type NativeDisplay } from './helpers.js';
import type { NativeObserver } from './observer.js';
import type { ElementRef, MouseButton, NativeActResult, NativeAction, NativeElement, NativeWindow, Point } from './types.js';
import { centre, toNativeWindows, windowAt, type RawXWindow } from './windows.js';

/** AT-SPI action names that mean "what a left click does", best first. */
const DEFAULT_ACTIONS = ['click', 'press', 'toggle', 'jump', 'activate'];
/** Roles whose 'activate' means "press Enter in me", not "click me". */
const TEXT_ROLES = new Set(['text', 'password text', 'entry', 'spin button', 'terminal', 'document text']);
const BUTTONS: Record<MouseButton, string> = { left: '1', middle: '2', right: '3' };
/** One xdotool key chord: names joined by '+'. Anything else (options, shell text) is refused. */
const KEY_CHORD = /^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*$/;
const TYPE_DELAY_MS = '20';
const MAX_TEXT = 5_000;
const BROWSER_HINT = 'use the browser tool for anything inside the browser window';

interface Target {
  ref: ElementRef;
  element: NativeElement;
  window: NativeWindow | undefined;
}

/**
 * Acts on native windows: by element number through AT-SPI first (exact, independent of what covers the
 * element), by synthesized xdotool input when the element offers no accessible way, and by coordinates only
 * when asked (canvases). Nothing may land in the browser's window.
 */
export class NativeActor {
  constructor(
    readonly display: NativeDisplay,
    readonly observer: NativeObserver,
  ) {}

  async act(slot: number, action: NativeAction): Promise<NativeActResult> {
    switch (action.kind) {
      case 'click':
        return this.click(
          slot,
          this.target(slot, action.element, action.generation),
          action.button ?? 'left',
          action.double ?? false,
        );
      case 'type':
        return this.type(slot, action);
      case 'key':
        return this.key(slot, action);
      case 'click_at':
        return this.clickAt(slot, { x: action.x, y: action.y }, action.button ?? 'left', action.double ?? false);
      case 'drag':
        return this.drag(slot, action.from, action.to, action.button ?? 'left');
      default: {
        const unknown: never = action;
        throw new NativeActionError(`unknown native action ${JSON.stringify(unknown)}`);
      }
    }
  }

  private target(slot: number, id: number, generation: number | undefined): Target {
    const target = this.observer.element(slot, id, generation);
    if (target.window?.browser) throw new BrowserWindowError(`element ${id} is in the browser window: ${BROWSER_HINT}`);
    return target;
  }

  private async click(slot: number, target: Target, button: MouseButton, double: boolean): Promise<NativeActResult> {
    const { element } = target;
    const label = `${element.role} "${element.name}"`;
    if (button === 'left' && !double) {
      const actions = DEFAULT_ACTIONS.filter((name) => !(name === 'activate' && TEXT_ROLES.has(element.role)));
      if (actions.some((name) => element.actions.includes(name))) {
        const answer = await runAtspi<{ ok: true; action: string }>(this.display, slot, {
          op: 'do_action',
          target: target.ref,
          actions,
        });
        if (!isFailure(answer)) return { via: 'atspi', summary: `${answer.action} on ${label} (AT-SPI)` };
        this.throwUnlessFallback(answer, element.id);
      }
    }
    const point = await this.liveCentre(slot, target);
    await this.ensureOnTop(slot, target, point);
    await this.clickPoint(slot, point, button, double);
    return { via: 'xdotool', summary: `${button} ${double ? 'double-' : ''}click on ${label} at (${point.x},${point.y})` };
  }

  private async type(slot: number, action: Extract<NativeAction, { kind: 'type' }>): Promise<NativeActResult> {
    if (action.text.length > MAX_TEXT) throw new NativeActionError(`text longer than ${MAX_TEXT} characters; type it in parts`);
    let summary: string;
    let via: NativeActResult['via'] = 'xdotool';
    let window: NativeWindow | undefined;
    if (action.element !== undefined) {
      const target = this.target(slot, action.element, action.generation);
      window = target.window;
      const answer = await runAtspi<{ ok: true; text: string | null }>(this.display, slot, {
        op: 'set_text',
        target: target.ref,
        text: action.text,
        append: action.clear === false,
      });
      if (!isFailure(answer)) {
        via = 'atspi';
        summary = `set the text of ${target.element.role} "${target.element.name}" (AT-SPI)`;
      } else {
        this.throwUnlessFallback(answer, target.element.id);
        // No editable-text interface (terminals, custom widgets): click into it and type for real.
        await this.click(slot, target, 'left', false);
        await this.typeKeys(slot, window, action.text);
        summary = `typed into ${target.element.role} "${target.element.name}"`;
      }
    } else {
      window = await this.activeWindow(slot);
      await this.typeKeys(slot, window, action.text);
      summary = `typed into ${window ? `W "${window.title}"` : 'the focused window'}`;
    }
    if (action.submit) {
      await this.sendKeys(slot, window, ['Return']);
      summary += ' and pressed Return';
    }
    return { via, summary };
  }

  private async key(slot: number, action: Extract<NativeAction, { kind: 'key' }>): Promise<NativeActResult> {
    const chords = action.keys.trim().split(/\s+/);
    if (chords.length === 0 || chords.length > 20 || !chords.every((chord) => KEY_CHORD.test(chord))) {
      throw new NativeActionError(
        `keys must be xdotool key names joined by '+', separated by spaces (e.g. "ctrl+s Return"), got "${action.keys}"`,
      );
    }
    let window: NativeWindow | undefined;
    if (action.element !== undefined) {
      const target = this.target(slot, action.element, action.generation);
      window = target.window;
      await runAtspi(this.display, slot, { op: 'focus', target: target.ref });
    } else {
      window = await this.activeWindow(slot);
    }
    await this.sendKeys(slot, window, chords);
    return { via: 'xdotool', summary: `pressed ${chords.join(' ')}${window ? ` in "${window.title}"` : ''}` };
  }

  /** Moves the pointer to `point` (hover handlers run) and clicks there. */
  private async clickPoint(slot: number, point: Point, button: MouseButton, double: boolean): Promise<void> {
    await this.xdotool(slot, [
      'mousemove',
      '--sync',
      ...coords(point),
      'click',
      ...(double ? ['--repeat', '2'] : []),
      BUTTONS[button],
    ]);
  }

  private async clickAt(slot: number, point: Point, button: MouseButton, double: boolean): Promise<NativeActResult> {
    checkPoint(point, 'click_at');
    const window = await this.nonBrowserWindowAt(slot, point);
    await this.clickPoint(slot, point, button, double);
    return { via: 'xdotool', summary: `${button} click at (${point.x},${point.y})${window ? ` in "${window.title}"` : ''}` };
  }

  private async drag(slot: number, from: Point, to: Point, button: MouseButton): Promise<NativeActResult> {
    checkPoint(from, 'drag from');
    checkPoint(to, 'drag to');
    await this.nonBrowserWindowAt(slot, from);
    await this.nonBrowserWindowAt(slot, to);
    // Toolkits and canvases only see a drag when the pointer moves in between, not a jump from press to release.
    const distance = Math.hypot(to.x - from.x, to.y - from.y);
    const steps = Math.min(40, Math.max(5, Math.round(distance / 20)));
    const args = ['mousemove', '--sync', ...coords(from), 'mousedown', BUTTONS[button]];
    for (let step = 1; step <= steps; step += 1) {
      const x = Math.round(from.x + ((to.x - from.x) * step) / steps);
      const y = Math.round(from.y + ((to.y - from.y) * step) / steps);
      args.push('mousemove', String(x), String(y), 'sleep', '0.01');
    }
    args.push('mouseup', BUTTONS[button]);
    await this.xdotool(slot, args);
    return { via: 'xdotool', summary: `dragged from (${from.x},${from.y}) to (${to.x},${to.y})` };
  }

  /** A stale element is the model's to fix; missing interfaces fall back to real input. */
  private throwUnlessFallback(answer: AtspiFailure, id: number): void {
    if (answer.error === 'stale')
      throw new NativeStaleElementError(`element ${id} has changed (${answer.message}): observe again`);
    if (answer.error === 'failed') throw new NativeHelperError(`AT-SPI failed on element ${id}: ${answer.message}`);
  }

  /** The element's current centre (it may have moved since the observation), checked against the screen. */
  private async liveCentre(slot: number, target: Target): Promise<Point> {
    const answer = await runAtspi<{ ok: true; extents: [number, number, number, number] | null }>(this.display, slot, {
      op: 'resolve',
      target: target.ref,
    });
    if (isFailure(answer)) {
      this.throwUnlessFallback(answer, target.element.id);
      throw new NativeActionError(`element ${target.element.id} cannot be clicked: ${answer.message}`);
    }
    const [x, y, width, height] = answer.extents ?? [0, 0, 0, 0];
    if (width <= 0 || height <= 0) throw new NativeActionError(`element ${target.element.id} has no size on screen`);
    const point = centre({ x, y, width, height });
    if (!onScreen(point)) {
      throw new NativeActionError(
        `element ${target.element.id} is off screen at (${point.x},${point.y}): move or scroll its window first`,
      );
    }
    return point;
  }

  /** Raises the element's window when another (the browser, say) covers the point, and refuses if that fails. */
  private async ensureOnTop(slot: number, target: Target, point: Point): Promise<void> {
    let top = windowAt(await this.windows(slot), point);
    const own = target.window?.xid;
    if (own === undefined || top?.xid === own) return;
    await this.xdotool(slot, ['windowactivate', '--sync', String(own)]).catch(() => undefined);
    top = windowAt(await this.windows(slot), point);
    if (top?.browser)
      throw new BrowserWindowError(`element ${target.element.id} is covered by the browser window: ${BROWSER_HINT}`);
  }

  private async nonBrowserWindowAt(slot: number, point: Point): Promise<NativeWindow | undefined> {
    const window = windowAt(await this.windows(slot), point);
    if (window?.browser) {
      throw new BrowserWindowError(`(${point.x},${point.y}) is inside the browser window "${window.title}": ${BROWSER_HINT}`);
    }
    return window;
  }

  /** The window with the keyboard focus, browser or not (undefined when none has it). */
  async focusedWindow(slot: number): Promise<NativeWindow | undefined> {
    return (await this.windows(slot)).find((w) => w.active);
  }

  /**
   * Types for a person who holds the screen, into whatever has the focus. Unlike the agent's typing this
   * may go to the browser: the person chose where. (Text the browser has the focus for is better inserted
   * over CDP: see the worker's person typing.)
   */
  async typeForPerson(slot: number, text: string): Promise<void> {
    const characters = [...text];
    for (let i = 0; i < characters.length; i += MAX_TEXT) await this.typeText(slot, characters.slice(i, i + MAX_TEXT).join(''));
  }

  private async activeWindow(slot: number): Promise<NativeWindow | undefined> {
    const window = await this.focusedWindow(slot);
    if (window?.browser) throw new BrowserWindowError(`the focused window is the browser: ${BROWSER_HINT}`);
    return window;
  }

  private async windows(slot: number): Promise<NativeWindow[]> {
    const answer = await runAtspi<{ ok: true; x: RawXWindow[] }>(this.display, slot, { op: 'windows' });
    if (isFailure(answer)) throw new NativeHelperError(`listing windows failed: ${answer.message}`);
    return toNativeWindows(answer.x);
  }

  /** windowfocus --sync first: keystrokes go to the X focus, which must be the target window before typing. */
  private async typeKeys(slot: number, window: NativeWindow | undefined, text: string): Promise<void> {
    if (window?.browser) throw new BrowserWindowError(`typing would go to the browser: ${BROWSER_HINT}`);
    if (window?.xid !== undefined) await this.xdotool(slot, ['windowfocus', '--sync', String(window.xid)]);
    await this.typeText(slot, text);
  }

  /** Into the X focus, one key at a time (xdotool maps what the keyboard lacks onto a spare key). */
  private async typeText(slot: number, text: string): Promise<void> {
    await this.xdotool(slot, ['type', '--delay', TYPE_DELAY_MS, '--', text], typingTimeMs(text));
  }

  private async sendKeys(slot: number, window: NativeWindow | undefined, chords: string[]): Promise<void> {
    if (window?.browser) throw new BrowserWindowError(`keys would go to the browser: ${BROWSER_HINT}`);
    const focus = window?.xid !== undefined ? ['windowfocus', '--sync', String(window.xid)] : [];
    await this.xdotool(slot, [...focus, 'key', '--clearmodifiers', ...chords]);
  }

  private async xdotool(slot: number, args: string[], timeoutMs = 10_000): Promise<void> {
    await runClient(this.display, slot, 'xdotool', args, timeoutMs);
  }
}

function onScreen(point: Point): boolean {
  return point.x >= 0 && point.y >= 0 && point.x < SCREEN_WIDTH && point.y < SCREEN_HEIGHT;
}

function checkPoint(point: Point, what: string): void {
  if (!Number.isInteger(point.x) || !Number.isInteger(point.y) || !onScreen(point)) {
    throw new CoordinatesOutOfScreenError(
      `${what} (${point.x},${point.y}) is outside the ${SCREEN_WIDTH}×${SCREEN_HEIGHT} screen: x must be 0…${SCREEN_WIDTH - 1}, y 0…${SCREEN_HEIGHT - 1}`,
    );
  }
}

function coords(point: Point): [string, string] {
  return [String(point.x), String(point.y)];
}
