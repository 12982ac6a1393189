/// <reference lib="dom" />
import type { ElementHandle, Page } from 'playwright-core';
import { observeInPage, resolveInPage, type ObservedElement, type ObservedPage } from './page-script.js';

/** The one navigation wait's bound: a new document that is not parsed by then is observed as it is. */
const NAVIGATION_TIMEOUT_MS = 15_000;
/** How long a submitted form may take to start its navigation: the browser plans it as a task of its own. */
const SUBMIT_PLAN_MS = 1_000;

/** After the document is parsed, how long its `load` (images, styles, late scripts) may still be waited for. */
const LOAD_GRACE_MS = 3_000;
/** How long a scroll may take to come to rest (smooth scrolling) before the page is observed anyway. */
const SCROLL_SETTLE_MS = 2_000;
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

export interface NumberedPageOptions {
  /** How long a click on a disabled control waits for it to become enabled. */
  enableTimeoutMs?: number;
  maxTextChars?: number;
  maxElements?: number;
}

/** An eval's value, cut when its JSON is too long for the model. */
export interface EvalValue {
  value: unknown;
  truncated?: true;
}

/**
 * One browser page seen the way the agent sees it: interactive elements numbered 1…N, renumbered at every
 * observation, and actions addressed by those numbers. A number from an older observation is refused
 * rather than allowed to hit whatever carries that number now.
 *
 * Every browser action of the agent (the CLI's and the worker's) is a method here, and every one that may
 * load another document waits for it the same way (`settleNavigation`): on the page's own events with a
 * bound, never a fixed sleep.
 */
export class NumberedPage {
  private generation = 0;
  private readonly enableTimeoutMs: number;
  private readonly maxTextChars: number;
  private readonly maxElements: number;

  constructor(
    readonly page: Page,
    options: NumberedPageOptions = {},
  ) {
    this.enableTimeoutMs = options.enableTimeoutMs ?? 45_000;
    this.maxTextChars = options.maxTextChars ?? 4_000;
    this.maxElements = options.maxElements ?? 300;
  }

  async observe(): Promise<ObservedPage> {
    const observed = await this.page.evaluate(observeInPage, { maxTextChars: this.maxTextChars, maxElements: this.maxElements });
    this.generation = observed.generation;
    return observed;
  }

  async navigate(url: string): Promise<ObservedPage> {
    await this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
    await this.loadGrace();
    return this.observe();
  }

  /** Moves the pointer onto the element (hover handlers run), then clicks a point that really hits it. */
  async click(id: number): Promise<void> {
    const handle = await this.element(id);
    try {
      await handle.scrollIntoViewIfNeeded();
      await this.waitUntilEnabled(handle, id);
      const point = await hitPoint(handle);
      if (!point) throw new ElementNotInteractableError(`element ${id} is covered by something else; observe again`);
      await this.page.mouse.move(point.x, point.y, { steps: 2 });
      await this.settleNavigation(() => this.page.mouse.click(point.x, point.y));
    } finally {
      await handle.dispose();
    }
  }

  /** Replaces the element's text (or appends with `clear: false`); `submit` presses Enter after. */
  async type(id: number, text: string, options: { clear?: boolean; submit?: boolean } = {}): Promise<void> {
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
  }

  /** Chooses an option of a native select by its visible label (or its value). */
  async select(id: number, label: string): Promise<string> {
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
  }

  /**
   * A real wheel event (so the scroll container under the pointer moves, as for a person), by `amount`
   * CSS pixels or most of a window; resolves once the scrolling has come to rest.
   */
  async scroll(direction: 'up' | 'down', amount?: number): Promise<void> {
    const distance = amount ?? Math.round((await this.page.evaluate(() => innerHeight)) * 0.8);
    // Armed before the wheel, so that the scroll's own events cannot be missed.
    await this.page.evaluate(armScrollWatch, SCROLL_SETTLE_MS);
    await this.page.mouse.wheel(0, direction === 'down' ? distance : -distance);
    await this.page.evaluate(scrollAtRest).catch(() => undefined);
  }

  /** Presses keys (Playwright names: Enter, Control+A, PageDown); Enter in a form may load a new page. */
  async press(keys: string): Promise<void> {
    await this.settleNavigation(() => this.page.keyboard.press(keys));
  }

  /** Goes back or forward in the tab's history; `false` when there was nowhere to go. */
  async history(direction: 'back' | 'forward'): Promise<boolean> {
    const before = this.page.url();
    const options = { waitUntil: 'commit' as const, timeout: NAVIGATION_TIMEOUT_MS };
    // 'commit', then the document's own state: a page restored from the back/forward cache fires no load events.
    const response = direction === 'back' ? this.page.goBack(options) : this.page.goForward(options);
    await response;
    await this.page.evaluate(documentParsed, NAVIGATION_TIMEOUT_MS).catch(() => undefined);
    return this.page.url() !== before;
  }

  /** Evaluates an expression in the page's global scope; its JSON value, cut when too long. */
  async evaluate(expression: string): Promise<EvalValue> {
    const value: unknown = await this.page.evaluate(expression);
    const json = JSON.stringify(value);
    if (json === undefined || json.length <= MAX_EVAL_RESULT_CHARS) return { value: value ?? null };
    return { value: json.slice(0, MAX_EVAL_RESULT_CHARS), truncated: true };
  }

  private async element(id: number): Promise<ElementHandle<Element>> {
    if (this.generation === 0) throw new StaleElementError('nothing has been observed on this page yet: observe first');
    const check = await this.page.evaluate(resolveInPage, { id, generation: this.generation });
    if (!check.ok) {
      if (check.reason === 'unknown') throw new ElementNotFoundError(`there is no element ${id} in the latest observation`);
      throw new StaleElementError(`element ${id} is from an older observation: the page has changed. Observe again.`);
    }
    const handle = await this.page.evaluateHandle((index) => {
      const w = window as unknown as { __lazyboyElements: { elements: Element[] } };
      return w.__lazyboyElements.elements[index]!;
    }, id - 1);
    return handle as ElementHandle<Element>;
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
  lines.push(`Interactive elements (observation ${observed.generation}; use these numbers until the next observation):`);
  if (observed.elements.length === 0) lines.push('(none)');
  for (const el of observed.elements) lines.push(renderElement(el));
  lines.push('', 'Text:', observed.text || '(no text)');
  return lines.join('\n');
}

function renderElement(el: ObservedElement): string {
  const where = el.inViewport ? '' : ' (off-screen)';
  const details = el.details.length > 0 ? ` ${el.details.join(' ')}` : '';
  return `[${el.id}] ${el.role}${el.name ? ` "${el.name}"` : ''}${details}${where}`;
}
