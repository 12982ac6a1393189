import { ElementNotFoundError, ElementNotInteractableError, StaleElementError, type ObservedPage } from '@lazyboy/desktop';
import type { BrowserActionName, BrowserActionRequest, BrowserTab } from '@lazyboy/contracts';
import { WorkerHttpError } from '../http/errors.js';
import type { BrowserSession } from './browser-sessions.js';
import { firstLine } from './browser-sessions.js';
import { followingNavigation, scrollSettled } from './page-waits.js';

const MAX_EVAL_RESULT_CHARS = 20_000;

export interface ActionOutcome {
  observed: ObservedPage;
  result?: unknown;
  tabs?: BrowserTab[];
}

/** Does one browser action on the slot's active tab and observes the page afterwards. */
export async function performBrowserAction(
  name: BrowserActionName,
  request: BrowserActionRequest,
  session: BrowserSession,
): Promise<ActionOutcome> {
  try {
    return await perform(name, request, session);
  } catch (error) {
    throw asHttpError(error);
  }
}

async function perform(name: BrowserActionName, request: BrowserActionRequest, session: BrowserSession): Promise<ActionOutcome> {
  const { page, numbered } = await session.activePage();
  const observe = async (extra: Omit<ActionOutcome, 'observed'> = {}): Promise<ActionOutcome> => {
    return { observed: await session.observe(), ...extra };
  };
  if ('element' in request) session.assertGeneration(page, request.generation);
  switch (name) {
    case 'observe':
      return observe();
    case 'navigate': {
      const { url } = request as BrowserActionRequest<'navigate'>;
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      return observe();
    }
    case 'click': {
      await numbered.click((request as BrowserActionRequest<'click'>).element);
      return observe();
    }
    case 'type': {
      const { element, text, submit, clear } = request as BrowserActionRequest<'type'>;
      await numbered.type(element, text, { submit: submit ?? false, clear: clear ?? true });
      return observe();
    }
    case 'select': {
      const { element, label } = request as BrowserActionRequest<'select'>;
      const selected = await numbered.select(element, label);
      return observe({ result: { selected } });
    }
    case 'scroll': {
      const { direction, amount } = request as BrowserActionRequest<'scroll'>;
      const distance = amount ?? Math.round((await page.evaluate<number>('window.innerHeight')) * 0.8);
      // A real wheel event, so the scroll container under the pointer moves as it would for a person.
      await page.mouse.wheel(0, direction === 'down' ? distance : -distance);
      await scrollSettled(page);
      return observe();
    }
    case 'key': {
      const { keys } = request as BrowserActionRequest<'key'>;
      await followingNavigation(page, () => page.keyboard.press(keys));
      return observe();
    }
    case 'back':
    case 'forward': {
      const before = page.url();
      const go = name === 'back' ? page.goBack.bind(page) : page.goForward.bind(page);
      // 'commit', not 'domcontentloaded': a page restored from the back/forward cache fires no load events.
      await go({ waitUntil: 'commit', timeout: 15_000 });
      await page.waitForFunction("document.readyState !== 'loading'", undefined, { timeout: 5_000 }).catch(() => undefined);
      return observe({ result: { moved: page.url() !== before } });
    }
    case 'tabs': {
      const tabs = request as BrowserActionRequest<'tabs'>;
      if (tabs.op === 'switch') await session.switchTo(tabs.index);
      if (tabs.op === 'new') await session.open(tabs.url);
      if (tabs.op === 'close') await session.close(tabs.index);
      return observe({ tabs: await session.tabs() });
    }
    case 'eval': {
      const { expression } = request as BrowserActionRequest<'eval'>;
      const value: unknown = await page.evaluate(expression);
      return observe({ result: boundedValue(value) });
    }
  }
}

/** Large results (a whole DOM serialised) would flood the model's context; cut them and say so. */
function boundedValue(value: unknown): { value: unknown; truncated?: true } {
  const json = JSON.stringify(value);
  if (json === undefined || json.length <= MAX_EVAL_RESULT_CHARS) return { value: value ?? null };
  return { value: json.slice(0, MAX_EVAL_RESULT_CHARS), truncated: true };
}

function asHttpError(error: unknown): unknown {
  if (error instanceof WorkerHttpError) return error;
  if (error instanceof StaleElementError) return new WorkerHttpError('STALE_ELEMENT', error.message);
  if (error instanceof ElementNotFoundError) return new WorkerHttpError('ELEMENT_NOT_FOUND', error.message);
  if (error instanceof ElementNotInteractableError) return new WorkerHttpError('ELEMENT_NOT_INTERACTABLE', error.message);
  const message = firstLine(error);
  if (/has been closed|Target closed|Browser closed|browser has disconnected/i.test(message)) {
    return new WorkerHttpError('BROWSER_UNAVAILABLE', `the browser went away: ${message}`);
  }
  // Navigation errors, timeouts, exceptions thrown by an eval: the model should read them and adapt.
  return new WorkerHttpError('BROWSER_ACTION_FAILED', message);
}
