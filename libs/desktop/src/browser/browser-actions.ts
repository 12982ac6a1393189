import type { BrowserActionBody, BrowserActionName } from '@lazyboy/contracts';
import type { BrowserTabInfo, BrowserTabs } from './browser-tabs.js';
import { NoSuchTabError } from './browser-tabs.js';
import {
  ElementNotFoundError,
  ElementNotInteractableError,
  PageUnresponsiveError,
  StaleElementError,
  type PointerTarget,
} from './numbered-page.js';
import type { ObservedPage } from './page-script.js';

export interface BrowserActionOutcome {
  observed: ObservedPage;
  /** Action-specific: eval's value, select's chosen label, back/forward's `moved`. */
  result?: unknown;
  tabs?: BrowserTabInfo[];
}

/**
 * Does one browser action on the active tab and observes the page afterwards: the one dispatcher the
 * worker's `/browser/<action>` routes and the CLI's in-process browser share. The actions themselves
 * are NumberedPage's (tabs are BrowserTabs').
 */
export async function performBrowserAction<N extends BrowserActionName>(
  tabs: BrowserTabs,
  name: N,
  body: BrowserActionBody<N>,
): Promise<BrowserActionOutcome> {
  const request = body as BrowserActionBody;
  const { numbered } = await tabs.activePage();
  const observe = async (extra: Omit<BrowserActionOutcome, 'observed'> = {}) => ({ observed: await tabs.observe(), ...extra });
  switch (name) {
    case 'observe':
      return observe();
    case 'navigate':
      await numbered.navigate((request as BrowserActionBody<'navigate'>).url);
      return observe();
    case 'click': {
      const { button, count, modifiers, ...target } = request as BrowserActionBody<'click'>;
      await numbered.click(pointerTarget(target), { button, count, modifiers });
      return observe();
    }
    case 'hover':
      await numbered.hover(pointerTarget(request as BrowserActionBody<'hover'>));
      return observe();
    case 'drag': {
      const { toElement, toX, toY, modifiers, ...from } = request as BrowserActionBody<'drag'>;
      await numbered.drag(pointerTarget(from), pointerTarget({ element: toElement, x: toX, y: toY }), modifiers);
      return observe();
    }
    case 'type': {
      const { element, text, submit, clear } = request as BrowserActionBody<'type'>;
      await numbered.type(element, text, { submit: submit ?? false, clear: clear ?? true });
      return observe();
    }
    case 'select': {
      const { element, label } = request as BrowserActionBody<'select'>;
      return observe({ result: { selected: await numbered.select(element, label) } });
    }
    case 'scroll': {
      const { direction, amount, element } = request as BrowserActionBody<'scroll'>;
      await numbered.scroll(direction, amount, element);
      return observe();
    }
    case 'key':
      await numbered.press((request as BrowserActionBody<'key'>).keys);
      return observe();
    case 'back':
    case 'forward':
      return observe({ result: { moved: await numbered.history(name) } });
    case 'tabs': {
      const op = request as BrowserActionBody<'tabs'>;
      if (op.op === 'switch') await tabs.switchTo(op.index);
      if (op.op === 'new') await tabs.open(op.url);
      if (op.op === 'close') await tabs.close(op.index);
      return observe({ tabs: await tabs.list() });
    }
    case 'eval':
      return observe({ result: await numbered.evaluate((request as BrowserActionBody<'eval'>).expression) });
  }
  throw new Error(`unknown browser action ${String(name)}`);
}

/** A request's target fields as NumberedPage takes them (the schemas made sure one of the two is there). */
function pointerTarget(fields: { element?: number | undefined; x?: number | undefined; y?: number | undefined }): PointerTarget {
  if (fields.element !== undefined) return { element: fields.element, x: fields.x, y: fields.y };
  return { x: fields.x ?? 0, y: fields.y ?? 0 };
}

/** What went wrong in a browser action, by the code both the worker and the CLI report it with. */
export type BrowserFailureCode =
  | 'STALE_ELEMENT'
  | 'ELEMENT_NOT_FOUND'
  | 'ELEMENT_NOT_INTERACTABLE'
  | 'PAGE_UNRESPONSIVE'
  | 'BROWSER_UNAVAILABLE'
  | 'BROWSER_ACTION_FAILED';

export function browserFailureCode(error: unknown): BrowserFailureCode {
  if (error instanceof StaleElementError) return 'STALE_ELEMENT';
  if (error instanceof ElementNotFoundError) return 'ELEMENT_NOT_FOUND';
  if (error instanceof ElementNotInteractableError) return 'ELEMENT_NOT_INTERACTABLE';
  if (error instanceof PageUnresponsiveError) return 'PAGE_UNRESPONSIVE';
  if (error instanceof NoSuchTabError) return 'BROWSER_ACTION_FAILED';
  const message = error instanceof Error ? error.message : String(error);
  if (/has been closed|Target closed|Browser closed|browser has disconnected/i.test(message)) return 'BROWSER_UNAVAILABLE';
  // Navigation errors, timeouts, exceptions thrown by an eval: the model should read them and adapt.
  return 'BROWSER_ACTION_FAILED';
}
