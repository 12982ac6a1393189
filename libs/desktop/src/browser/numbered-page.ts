/// <reference lib="dom" />
import type { ElementHandle, Page } from 'playwright-core';
import { observeInPage, resolveInPage, type ObservedElement, type ObservedPage } from './page-script.js';

const NAVIGATION_TIMEOUT_MS = 15_000;

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

/**
 * One browser page seen the way the agent sees it: interactive elements numbered 1…N, renumbered at every
 * observation, and actions addressed by those numbers. A number from an older observation is refused
 * rather than allowed to hit whatever carries that number now.
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
    await this.page.goto(url, { waitUntil: 'domcontentloaded' });
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
      await this.followingNavigation(() => this.page.mouse.click(point.x, point.y));
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
      if (options.submit) await this.followingNavigation(() => this.page.keyboard.press('Enter'));
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

  private async waitUntilEnabled(handle: ElementHandle<Element>, id: number): Promise<void> {
    const deadline = Date.now() + this.enableTimeoutMs;
    for (;;) {
      const disabled = await handle.evaluate(
        (el) => (el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true',
      );
      if (!disabled) return;
      if (Date.now() > deadline) {
        throw new ElementNotInteractableError(`element ${id} stayed disabled for ${Math.round(this.enableTimeoutMs / 1000)} s`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Runs an action that may navigate; if it starts a navigation to another document, waits for the new
   * document to be parsed (so the next observation sees the new page, not the old one). The page's own
   * Navigation API says so synchronously, during the click, so this does not depend on timing.
   */
  private async followingNavigation(action: () => Promise<void>): Promise<void> {
    let loaded: () => void = () => undefined;
    const newDocument = new Promise<void>((resolve) => (loaded = resolve));
    this.page.on('domcontentloaded', loaded);
    try {
      await this.page.evaluate(armNavigationProbe).catch(() => undefined);
      await action();
      // Throws when the old document is already gone: that, too, means a new one is on its way.
      const navigating = await this.page.evaluate(readNavigationProbe).catch(() => true);
      if (navigating) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([newDocument, new Promise((r) => (timer = setTimeout(r, NAVIGATION_TIMEOUT_MS)))]);
        clearTimeout(timer);
      }
    } finally {
      this.page.off('domcontentloaded', loaded);
    }
  }
}

/** In the page: notes whether a navigation to another document starts (same-document ones do not count). */
function armNavigationProbe(): void {
  const w = window as unknown as { __lazyboyNavigating?: boolean; navigation?: EventTarget };
  w.__lazyboyNavigating = false;
  w.navigation?.addEventListener(
    'navigate',
    (event) => {
      if (!(event as Event & { destination: { sameDocument: boolean } }).destination.sameDocument) w.__lazyboyNavigating = true;
    },
    { once: true },
  );
}

function readNavigationProbe(): boolean {
  return (window as unknown as { __lazyboyNavigating?: boolean }).__lazyboyNavigating === true;
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
