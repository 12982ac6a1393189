/// <reference lib="dom" />
import type { ClickCount, KeyModifier, PointerButton, ScrollDirection } from '@lazyboy/contracts';
import type { ElementHandle, Page } from 'playwright-core';
import { elementInPage, observeInPage, resolveInPage, type ObservedElement, type ObservedPage } from './page-script.js';
import { PointerListenerScan } from './pointer-listeners.js';
import { TabCdp } from './tab-cdp.js';

/** The one navigation wait's bound: a new document that is not parsed by then is observed as it is. */
const NAVIGATION_TIMEOUT_MS = 15_000;
/** How long a submitted form may take to start its navigation: the browser plans it as a task of its own. */
const SUBMIT_PLAN_MS = 1_000;

/** After the document is parsed, how long its `load` (images, styles, late scripts) may still be waited for. */
const LOAD_GRACE_MS = 3_000;
/** How long a scroll may take to come to rest (smooth scrolling) before the page is observed anyway. */
const SCROLL_SETTLE_MS = 2_000;
/** How often a pointer action re-aims at an element that moved when the pointer came (layout shifts settle). */
const MAX_AIMS = 3;
/** How many pointer moves a drag makes between its ends: enough for drag thresholds and sliders to follow. */
const DRAG_STEPS = 12;
/** Every action's bound: a page that does not answer by then is rescued (TabCdp.rescue) and the action fails. */
const ACTION_DEADLINE_MS = 20_000;
/** An action that may load a document: the navigation's own bound, its load grace and an observation. */
const NAVIGATION_DEADLINE_MS = NAVIGATION_TIMEOUT_MS + LOAD_GRACE_MS + ACTION_DEADLINE_MS;
/** An eval's JSON value beyond this is cut (a whole DOM serialised would flood the model's context). */
export const MAX_EVAL_RESULT_CHARS = 20_000;

export class StaleElementError extends Error {
  override readonly name = 'StaleElementError';
}

export class ElementNotFoundError extends Error {
  override readonly name = 'ElementNotFoundError';
}

export class ElementNotInteractableError extends Error {
  override readonly name = 'ElementNotInteractableError';
}

/** The page did not answer within the action's deadline (a server that never responds, a script that never ends). */
export class PageUnresponsiveError extends Error {
  override readonly name = 'PageUnresponsiveError';
}

export interface NumberedPageOptions {
  /** How long a click on a disabled control waits for it to become enabled. */
  enableTimeoutMs?: number;
  maxTextChars?: number;
  maxElements?: number;
}

/**
 * Where a pointer action lands: an element (where it really receives the pointer, or at `x`,`y` CSS pixels
 * from its top-left corner: a canvas, a chart, a slider's track) or a point of the window.
 */
export type PointerTarget = { element: number; x?: number; y?: number } | { element?: undefined; x: number; y: number };

export interface ClickOptions {
  button?: PointerButton;
  /** 2: a double click (edit a cell, select a word), 3: a triple click (select a paragraph). */
  count?: ClickCount;
  /** Held down during the click: Control/Meta/Shift-click to pick several rows. */
  modifiers?: KeyModifier[];
}

/** An eval's value, cut when its JSON is too long for the model. */
export interface EvalValue {
  value: unknown;
  truncated?: true;
}

/**
 * One browser page seen the way the agent sees it: interactive elements numbered, and actions addressed by
 * those numbers. An element keeps its number while it is in the document; new elements get new numbers, and
 * numbers go on counting across the tab's documents, so a number always means one element: one that is no
 * longer there is refused rather than allowed to hit whatever is there now.
 *
 * Every browser action of the agent (the CLI's and the worker's) is a method here, and every one that may
 * load another document waits for it the same way (`settleNavigation`): on the page's own events with a
 * bound, never a fixed sleep.
 */
export class NumberedPage {
  /** The first number none of this tab's documents gave out yet. */
  private nextId = 1;
  private readonly enableTimeoutMs: number;
  private readonly maxTextChars: number;
  private readonly maxElements: number;
  private readonly listeners: PointerListenerScan;
  private readonly cdp: TabCdp;

  constructor(
    readonly page: Page,
    options: NumberedPageOptions = {},
  ) {
    this.enableTimeoutMs = options.enableTimeoutMs ?? 45_000;
    this.maxTextChars = options.maxTextChars ?? 4_000;
    this.maxElements = options.maxElements ?? 300;
    this.cdp = new TabCdp(page);
    this.listeners = new PointerListenerScan(this.cdp);
  }

  /** Actions that may wait for a disabled control first: that wait, then an action's own bound. */
  private get waitingDeadlineMs(): number {
    return this.enableTimeoutMs + ACTION_DEADLINE_MS;
  }

  /**
   * Runs one action within `deadlineMs`. A page that does not answer by then is given back (its load
   * stopped, its busy script ended) so that the tab serves the next action, and this one fails saying so.
   */
  private async bounded<T>(action: string, deadlineMs: number, work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const running = work();
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new PageUnresponsiveError(`the page did not answer within ${deadlineMs / 1000} s (${action}); it was stopped`)),
        deadlineMs,
      );
    });
    try {
      return await Promise.race([running, late]);
    } catch (error) {
      if (error instanceof PageUnresponsiveError) {
        // The abandoned work settles once the page is back; nobody waits for it.
        running.catch(() => undefined);
        await this.cdp.rescue();
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async observe(): Promise<ObservedPage> {
    return this.bounded('observe', ACTION_DEADLINE_MS, async () => {
      // A document replaced under the scan (a navigation starting) loses its marks, not the observation:
      // the elements a selector finds are still numbered.
      await this.listeners.run().catch(() => false);
      const observed = await this.page.evaluate(observeInPage, {
        maxTextChars: this.maxTextChars,
        maxElements: this.maxElements,
        nextId: this.nextId,
      });
      this.nextId = Math.max(this.nextId, observed.nextId);
      return observed;
    });
  }

  async navigate(url: string): Promise<ObservedPage> {
    return this.bounded('navigate', NAVIGATION_DEADLINE_MS, async () => {
      try {
        await this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
      } catch (error) {
        if (!(error instanceof Error && error.name === 'TimeoutError')) throw error;
        // A server that never answers: the load is stopped so that the tab is not left waiting on it.
        await this.cdp.rescue();
        throw new PageUnresponsiveError(
          `${url} did not answer within ${NAVIGATION_TIMEOUT_MS / 1000} s; its load was stopped (the tab shows ${this.page.url()})`,
        );
      }
      await this.loadGrace();
      return this.observe();
    });
  }

  /**
   * Moves the pointer onto the target (hover handlers run), then clicks: any button, one to three times,
   * with modifier keys held. On an element without a point, a point where the element really gets the
   * click; a covered one is refused.
   */
  async click(target: PointerTarget, options: ClickOptions = {}): Promise<void> {
    return this.bounded('click', this.waitingDeadlineMs, async () => {
      await this.atPoint(target, { enabled: true }, async (point) => {
        await this.holding(options.modifiers ?? [], () =>
          this.settleNavigation(() =>
            this.page.mouse.click(point.x, point.y, { button: options.button ?? 'left', clickCount: options.count ?? 1 }),
          ),
        );
      });
    });
  }

  /** Rests the pointer on the target: menus that open on hover, tooltips, controls shown on hover. */
  async hover(target: PointerTarget): Promise<void> {
    return this.bounded('hover', ACTION_DEADLINE_MS, async () => {
      await this.atPoint(target, { enabled: false }, async () => {
        await this.page.evaluate(nextFrames);
      });
    });
  }

  /**
   * Presses the left button on `from`, moves to `to` in steps and releases it there: sortable lists, sliders,
   * drag-and-drop boards (HTML drag events too), drawing. Both ends must be in the window together.
   */
  async drag(from: PointerTarget, to: PointerTarget, modifiers: KeyModifier[] = []): Promise<void> {
    return this.bounded('drag', this.waitingDeadlineMs, async () => {
      await this.atPoint(from, { enabled: true }, async (start) => {
        // The drop point is read before the drag starts: a dragged item may cover it once lifted.
        const end = await this.pointOf(to, { hitTest: false, scroll: false });
        await this.holding(modifiers, async () => {
          await this.page.mouse.down();
          await this.page.mouse.move(start.x + Math.sign(end.x - start.x) * 3, start.y + Math.sign(end.y - start.y) * 3);
          await this.page.mouse.move(end.x, end.y, { steps: DRAG_STEPS });
          await this.page.evaluate(nextFrames);
          await this.page.mouse.up();
        });
        await this.page.evaluate(nextFrames);
      });
    });
  }

  /** Replaces the element's text (or appends with `clear: false`); `submit` presses Enter after. */
  async type(id: number, text: string, options: { clear?: boolean; submit?: boolean } = {}): Promise<void> {
    return this.bounded('type', this.waitingDeadlineMs, async () => {
      const handle = await this.element(id);
      try {
        await handle.scrollIntoViewIfNeeded();
        await this.waitUntilEnabled(handle, id);
        if (options.clear ?? true) await handle.fill('');
        await handle.focus();
        await this.page.keyboard.type(text);
        if (options.submit) await this.settleNavigation(() => this.page.keyboard.press('Enter'));
      } finally {
        await handle.dispose();
      }
    });
  }

  /** Chooses an option of a native select by its visible label (or its value). */
  async select(id: number, label: string): Promise<string> {
    return this.bounded('select', ACTION_DEADLINE_MS, async () => {
      const handle = await this.element(id);
      try {
        const chosen = await handle.evaluate((el, wanted) => {
          if (!(el instanceof HTMLSelectElement)) return null;
          const option = Array.from(el.options).find((o) => o.text.trim() === wanted || o.value === wanted);
          if (!option) return null;
          el.value = option.value;
          el.dispatchEvent(new Event('input', { bubbles: true }));
          el.dispatchEvent(new Event('change', { bubbles: true }));
          return option.text.trim();
        }, label);
        if (chosen === null) throw new ElementNotInteractableError(`element ${id} is not a select with an option "${label}"`);
        return chosen;
      } finally {
        await handle.dispose();
      }
    });
  }

  /**
   * A real wheel event, by `amount` CSS pixels or most of a window (of the element, when one is named),
   * over the element (its own scrolling box or the one it is in moves, as for a person) or wherever the
   * pointer is; resolves once the scrolling has come to rest.
   */
  async scroll(direction: ScrollDirection, amount?: number, element?: number): Promise<void> {
    return this.bounded('scroll', ACTION_DEADLINE_MS, async () => {
      const horizontal = direction === 'left' || direction === 'right';
      const scrollOnce = async (distance: number) => {
        // Armed before the wheel, so that the scroll's own events cannot be missed.
        await this.page.evaluate(armScrollWatch, SCROLL_SETTLE_MS);
        const signed = direction === 'down' || direction === 'right' ? distance : -distance;
        await this.page.mouse.wheel(horizontal ? signed : 0, horizontal ? 0 : signed);
        await this.page.evaluate(scrollAtRest).catch(() => undefined);
      };
      if (element === undefined) {
        const window = await this.page.evaluate(() => ({ width: innerWidth, height: innerHeight }));
        return scrollOnce(amount ?? Math.round((horizontal ? window.width : window.height) * 0.8));
      }
      await this.atPoint({ element }, { enabled: false }, async (point, handle) => {
        const box = await handle!.evaluate((el) => ({
          width: el.clientWidth || el.getBoundingClientRect().width,
          height: el.clientHeight || el.getBoundingClientRect().height,
        }));
        await scrollOnce(amount ?? Math.max(40, Math.round((horizontal ? box.width : box.height) * 0.8)));
      });
    });
  }

  /** Presses keys (Playwright names: Enter, Control+A, PageDown); Enter in a form may load a new page. */
  async press(keys: string): Promise<void> {
    return this.bounded('press', NAVIGATION_DEADLINE_MS, async () => {
      await this.settleNavigation(() => this.page.keyboard.press(keys));
    });
  }

  /** Goes back or forward in the tab's history; `false` when there was nowhere to go. */
  async history(direction: 'back' | 'forward'): Promise<boolean> {
    return this.bounded('history', NAVIGATION_DEADLINE_MS, async () => {
      const before = this.page.url();
      const options = { waitUntil: 'commit' as const, timeout: NAVIGATION_TIMEOUT_MS };
      // 'commit', then the document's own state: a page restored from the back/forward cache fires no load events.
      const response = direction === 'back' ? this.page.goBack(options) : this.page.goForward(options);
      await response;
      await this.page.evaluate(documentParsed, NAVIGATION_TIMEOUT_MS).catch(() => undefined);
      return this.page.url() !== before;
    });
  }

  /** Evaluates an expression in the page's global scope; its JSON value, cut when too long. */
  async evaluate(expression: string): Promise<EvalValue> {
    return this.bounded('evaluate', ACTION_DEADLINE_MS, async () => {
      const value: unknown = await this.page.evaluate(expression);
      const json = JSON.stringify(value);
      if (json === undefined || json.length <= MAX_EVAL_RESULT_CHARS) return { value: value ?? null };
      return { value: json.slice(0, MAX_EVAL_RESULT_CHARS), truncated: true };
    });
  }

  private async element(id: number): Promise<ElementHandle<Element>> {
    const check = await this.page.evaluate(resolveInPage, { id, nextId: this.nextId });
    if (!check.ok) {
      if (check.reason === 'unknown') throw new ElementNotFoundError(`no element of this page has the number ${id}`);
      throw new StaleElementError(`element ${id} is no longer on the page (it was removed, or another page was loaded)`);
    }
    return (await this.page.evaluateHandle(elementInPage, id)) as ElementHandle<Element>;
  }

  /**
   * Brings the pointer to the target's point and runs a pointer action there (the element's handle with
   * it, when it is one), the element scrolled into view first and, with `enabled`, waited for if disabled.
   */
  private async atPoint(
    target: PointerTarget,
    options: { enabled: boolean },
    action: (point: { x: number; y: number }, handle?: ElementHandle<Element>) => Promise<void>,
  ): Promise<void> {
    if (target.element === undefined) {
      const point = await this.pointOf(target, { hitTest: false, scroll: false });
      await this.page.mouse.move(point.x, point.y, { steps: 2 });
      return action(point);
    }
    const handle = await this.element(target.element);
    try {
      await handle.scrollIntoViewIfNeeded();
      if (options.enabled) await this.waitUntilEnabled(handle, target.element);
      // Moving the pointer there may move the element (a hover menu elsewhere closes, a row grows): aimed
      // again until the point holds still, as a person's eye follows the target.
      let point = await this.pointOf(target, { hitTest: true, scroll: true }, handle);
      let pointer = { x: Number.NaN, y: Number.NaN };
      for (let aim = 0; aim < MAX_AIMS && !(Math.abs(pointer.x - point.x) < 1 && Math.abs(pointer.y - point.y) < 1); aim++) {
        await this.page.mouse.move(point.x, point.y, { steps: 2 });
        pointer = point;
        await this.page.evaluate(nextFrames);
        point = await this.pointOf(target, { hitTest: true, scroll: true }, handle);
      }
      // Still moving after the last aim: the pointer goes where it is now.
      if (pointer.x !== point.x || pointer.y !== point.y) await this.page.mouse.move(point.x, point.y);
      await action(point, handle);
    } finally {
      await handle.dispose();
    }
  }

  /**
   * The window point of a target. An element's own point is one where it really receives the pointer
   * (`hitTest`; refused when covered) or its centre; an offset must lie inside the element's box and is
   * brought into the window (`scroll`) when the element is taller or wider than it; a window point must
   * lie inside the window.
   */
  private async pointOf(
    target: PointerTarget,
    options: { hitTest: boolean; scroll: boolean },
    given?: ElementHandle<Element>,
  ): Promise<{ x: number; y: number }> {
    if (target.element === undefined) {
      const window = await this.page.evaluate(() => ({ width: innerWidth, height: innerHeight }));
      if (target.x >= window.width || target.y >= window.height) {
        throw new ElementNotInteractableError(
          `the point ${target.x},${target.y} is outside the window (${window.width}×${window.height})`,
        );
      }
      return { x: target.x, y: target.y };
    }
    const id = target.element;
    const handle = given ?? (await this.element(id));
    try {
      if (target.x === undefined && target.y === undefined) {
        if (options.hitTest) {
          const point = await hitPoint(handle);
          if (point) return point;
          if (await handle.evaluate(cutOff)) {
            throw new ElementNotInteractableError(
              `element ${id} is cut off by a box around it (folded away): open or scroll what holds it first`,
            );
          }
          throw new ElementNotInteractableError(`element ${id} is covered by something else; observe again`);
        }
        const centre = await handle.evaluate(centreOf);
        if (!centre.inWindow) {
          throw new ElementNotInteractableError(
            `element ${id} is outside the window: scroll so that both ends of the drag are visible`,
          );
        }
        return { x: centre.x, y: centre.y };
      }
      const offset = { x: target.x ?? 0, y: target.y ?? 0, scroll: options.scroll };
      const point = await handle.evaluate(offsetPoint, offset);
      if (point.outside) {
        throw new ElementNotInteractableError(
          `the point ${offset.x},${offset.y} is outside element ${id}, which is ${point.width}×${point.height}`,
        );
      }
      if (!point.inWindow)
        throw new ElementNotInteractableError(`the point ${offset.x},${offset.y} of element ${id} is outside the window`);
      return { x: point.x, y: point.y };
    } finally {
      if (!given) await handle.dispose();
    }
  }

  /** Holds modifier keys down around an input, released whatever happens. */
  private async holding<T>(modifiers: KeyModifier[], input: () => Promise<T>): Promise<T> {
    const held: KeyModifier[] = [];
    try {
      for (const key of modifiers) {
        await this.page.keyboard.down(key);
        held.push(key);
      }
      return await input();
    } finally {
      for (const key of held.reverse()) await this.page.keyboard.up(key).catch(() => undefined);
    }
  }

  /**
   * Waits for a disabled control to become usable (a form that enables its button late): the page tells
   * us by changing the attribute, so a MutationObserver hears it; bounded by `enableTimeoutMs`.
   */
  private async waitUntilEnabled(handle: ElementHandle<Element>, id: number): Promise<void> {
    const enabled = await handle.evaluate(
      (el, timeoutMs) =>
        new Promise<boolean>((resolve) => {
          const usable = () => !((el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true');
          if (usable()) return resolve(true);
          const observer = new MutationObserver(() => {
            if (!usable()) return;
            observer.disconnect();
            clearTimeout(bound);
            resolve(true);
          });
          observer.observe(el, { attributes: true, attributeFilter: ['disabled', 'aria-disabled'] });
          const bound = setTimeout(() => {
            observer.disconnect();
            resolve(false);
          }, timeoutMs);
        }),
      this.enableTimeoutMs,
    );
    if (!enabled) {
      throw new ElementNotInteractableError(`element ${id} stayed disabled for ${Math.round(this.enableTimeoutMs / 1000)} s`);
    }
  }

  /**
   * The one navigation wait. Runs an input that may navigate; if it starts a navigation to another
   * document, waits for the new document to be parsed (so the next observation sees the new page, not
   * the old one), then gives its `load` a short grace. The page's own Navigation API says synchronously,
   * during the input, whether a navigation started, and a `submit` event says one is planned, so this
   * does not depend on timing.
   */
  private async settleNavigation(action: () => Promise<void>): Promise<void> {
    let loaded: () => void = () => undefined;
    const newDocument = new Promise<void>((resolve) => (loaded = resolve));
    this.page.on('domcontentloaded', loaded);
    try {
      await this.page.evaluate(armNavigationProbe).catch(() => undefined);
      await action();
      // Throws when the old document is already gone: that, too, means a new one is on its way.
      const navigating = await this.page.evaluate(readNavigationProbe, SUBMIT_PLAN_MS).catch(() => true);
      if (!navigating) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([newDocument, new Promise((r) => (timer = setTimeout(r, NAVIGATION_TIMEOUT_MS)))]);
      clearTimeout(timer);
      await this.loadGrace();
    } finally {
      this.page.off('domcontentloaded', loaded);
    }
  }

  /** The current document's `load`, if it comes soon: slow subresources must not hold up the observation. */
  private async loadGrace(): Promise<void> {
    await this.page.waitForLoadState('load', { timeout: LOAD_GRACE_MS }).catch(() => undefined);
  }
}

/** In the page: two animation frames, so that what a pointer move changed (hover styles, a menu) is laid out. */
/** Whether an ancestor that clips its content (overflow other than visible) holds the element wholly outside. */
function cutOff(el: Element): boolean {
  const rect = el.getBoundingClientRect();
  for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
    const style = getComputedStyle(p);
    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
    const box = p.getBoundingClientRect();
    if (rect.right <= box.left || rect.left >= box.right || rect.bottom <= box.top || rect.top >= box.bottom) return true;
  }
  return false;
}

function nextFrames(): Promise<void> {
  return new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}

/** In the page: the centre of an element's box, and whether it is inside the window. */
function centreOf(el: Element): { x: number; y: number; inWindow: boolean } {
  const rect = el.getBoundingClientRect();
  const x = rect.left + rect.width / 2;
  const y = rect.top + rect.height / 2;
  return { x, y, inWindow: x >= 0 && y >= 0 && x < innerWidth && y < innerHeight };
}

/**
 * In the page: the window point `x`,`y` CSS pixels from an element's top-left corner, the window scrolled
 * (with `scroll`) to bring it in when the element is larger than the window.
 */
function offsetPoint(
  el: Element,
  offset: { x: number; y: number; scroll: boolean },
): { x: number; y: number; width: number; height: number; outside: boolean; inWindow: boolean } {
  let rect = el.getBoundingClientRect();
  const size = { width: Math.round(rect.width), height: Math.round(rect.height) };
  if (offset.x < 0 || offset.y < 0 || offset.x > rect.width || offset.y > rect.height) {
    return { x: 0, y: 0, ...size, outside: true, inWindow: false };
  }
  const within = () => {
    const x = rect.left + offset.x;
    const y = rect.top + offset.y;
    return { x, y, inWindow: x >= 0 && y >= 0 && x < innerWidth && y < innerHeight };
  };
  let point = within();
  if (!point.inWindow && offset.scroll) {
    scrollBy({ left: point.x - innerWidth / 2, top: point.y - innerHeight / 2, behavior: 'instant' });
    rect = el.getBoundingClientRect();
    point = within();
  }
  return { ...point, ...size, outside: false };
}

/** In the page: resolves once the document is parsed (at once for one restored from the back/forward cache). */
function documentParsed(timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (document.readyState !== 'loading') return resolve();
    const bound = setTimeout(resolve, timeoutMs);
    document.addEventListener('DOMContentLoaded', () => (clearTimeout(bound), resolve()), { once: true });
  });
}

type ScrollWatch = { __lazyboyScrollRest?: Promise<void> };

/**
 * In the page: starts watching for a scroll that is about to start to come to rest: the `scrollend`
 * event, or no scroll at all within ten frames (the page cannot move that way), bounded by `timeoutMs`.
 */
function armScrollWatch(timeoutMs: number): void {
  (window as unknown as ScrollWatch).__lazyboyScrollRest = new Promise<void>((resolve) => {
    let scrolled = false;
    const done = () => {
      removeEventListener('scroll', onScroll, true);
      removeEventListener('scrollend', done, true);
      clearTimeout(bound);
      resolve();
    };
    const onScroll = () => (scrolled = true);
    addEventListener('scroll', onScroll, { capture: true, passive: true });
    addEventListener('scrollend', done, { capture: true });
    const bound = setTimeout(done, timeoutMs);
    let frames = 0;
    const watch = () => {
      if (scrolled) return;
      if (++frames > 10) return done();
      requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
  });
}

function scrollAtRest(): Promise<void> | undefined {
  return (window as unknown as ScrollWatch).__lazyboyScrollRest;
}

type NavigationProbe = {
  __lazyboyNavigating?: boolean;
  __lazyboySubmit?: SubmitEvent;
  __lazyboyNavigate?: Promise<boolean>;
  navigation?: EventTarget;
};

/**
 * In the page: notes whether a navigation to another document starts (same-document ones do not count),
 * and whether a form was submitted: a submission's navigation starts in a task queued after the input,
 * so right after the key press only the `submit` event says one is coming.
 */
function armNavigationProbe(): void {
  const w = window as unknown as NavigationProbe;
  w.__lazyboyNavigating = false;
  w.__lazyboySubmit = undefined;
  w.__lazyboyNavigate = new Promise<boolean>((resolve) => {
    w.navigation?.addEventListener(
      'navigate',
      (event) => {
        const crossDocument = !(event as Event & { destination: { sameDocument: boolean } }).destination.sameDocument;
        if (crossDocument) w.__lazyboyNavigating = true;
        resolve(crossDocument);
      },
      { once: true },
    );
  });
  addEventListener('submit', (event) => (w.__lazyboySubmit = event as SubmitEvent), { capture: true, once: true });
}

/** In the page: whether the input started a navigation to another document, or submitted a form that will. */
async function readNavigationProbe(planMs: number): Promise<boolean> {
  const w = window as unknown as NavigationProbe;
  if (w.__lazyboyNavigating === true) return true;
  const submit = w.__lazyboySubmit;
  // A cancelled submit (a script handles the form) or a dialog form navigates nowhere.
  if (!submit || submit.defaultPrevented || (submit.target as HTMLFormElement | null)?.method === 'dialog') return false;
  const planned = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), planMs));
  return Promise.race([w.__lazyboyNavigate ?? planned, planned]);
}

/** A point inside the element where the element itself (or a descendant) is what receives the click. */
async function hitPoint(handle: ElementHandle<Element>): Promise<{ x: number; y: number } | null> {
  return handle.evaluate((el) => {
    const rect = el.getBoundingClientRect();
    const xs = [0.5, 0.25, 0.75, 0.1, 0.9];
    const ys = [0.5, 0.25, 0.75];
    for (const fy of ys) {
      for (const fx of xs) {
        const x = rect.left + rect.width * fx;
        const y = rect.top + rect.height * fy;
        if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
        const hit = document.elementFromPoint(x, y);
        if (hit && (hit === el || el.contains(hit) || (el instanceof HTMLLabelElement && hit === el.control))) return { x, y };
        // A label pointing at the input counts as the input.
        if (hit instanceof HTMLLabelElement && hit.control === el) return { x, y };
      }
    }
    return null;
  });
}

/** The observation as the model reads it. */
export function renderObservation(observed: ObservedPage): string {
  const lines = [`Page: ${observed.title || '(untitled)'} — ${observed.url}`];
  const { y, height, viewportHeight } = observed.scroll;
  if (height > viewportHeight) lines.push(`Scrolled to ${y} of ${height} px (window ${viewportHeight} px high)`);
  lines.push('Elements (a number stays with its element while it is on the page):');
  if (observed.elements.length === 0) lines.push('(none)');
  for (const el of observed.elements) lines.push(renderElement(el));
  lines.push('', 'Text:', observed.text || '(no text)');
  return lines.join('\n');
}

function renderElement(el: ObservedElement): string {
  const where = el.clipped ? ` (${el.clipped} in its box)` : el.inViewport ? '' : ' (off-screen)';
  const details = el.details.length > 0 ? ` ${el.details.join(' ')}` : '';
  // Where a point inside matters (a canvas, a chart, a slider), its box: x,y in the window and its size.
  const box = el.surface ? ` box=${el.box.x},${el.box.y} ${el.box.width}×${el.box.height}` : '';
  return `[${el.id}] ${el.role}${el.name ? ` "${el.name}"` : ''}${details}${box}${where}`;
}
