import { defineTool, type ToolDefinition, type ToolOutcome } from '@lazyboy/agent';
import { renderObservation } from '@lazyboy/desktop';
import { z } from 'zod';
import type { LocalBrowser } from './local-browser.js';

/**
 * The CLI's DOM browser tools: pages are read as numbered interactive elements (no screenshots), and
 * actions name those numbers. Every action answers with a fresh observation.
 */
export function browserTools(browser: LocalBrowser): ToolDefinition[] {
  const observeAfter = async (action: () => Promise<void>): Promise<ToolOutcome> => {
    const numbered = await browser.page();
    await action();
    const observed = await numbered.observe();
    return { content: renderObservation(observed), state: { browserUrl: observed.url } };
  };
  return [
    defineTool({
      name: 'browser_navigate',
      kind: 'browser',
      description: 'Open a URL in the browser and return the page: its interactive elements numbered 1…N and its visible text.',
      schema: z.object({ url: z.string().min(1) }),
      execute: async ({ url }) =>
        observeAfter(async () => void (await (await browser.page()).page.goto(url, { waitUntil: 'domcontentloaded' }))),
    }),
    defineTool({
      name: 'browser_snapshot',
      kind: 'browser',
      description: 'Observe the current page again (numbers are reassigned; older numbers stop working).',
      schema: z.object({}),
      execute: async () => observeAfter(async () => undefined),
    }),
    defineTool({
      name: 'browser_click',
      kind: 'browser',
      description:
        'Click element N of the latest observation (it is scrolled into view; a disabled control is waited for up to 45 s).',
      schema: z.object({ element: z.number().int().min(1) }),
      execute: async ({ element }) => observeAfter(async () => (await browser.page()).click(element)),
    }),
    defineTool({
      name: 'browser_type',
      kind: 'browser',
      description: 'Type text into element N of the latest observation (replacing its content); submit presses Enter after.',
      schema: z.object({ element: z.number().int().min(1), text: z.string(), submit: z.boolean().optional() }),
      execute: async ({ element, text, submit }) =>
        observeAfter(async () => (await browser.page()).type(element, text, submit === undefined ? {} : { submit })),
    }),
    defineTool({
      name: 'browser_eval',
      kind: 'browser',
      description:
        'Evaluate a JavaScript expression in the page and return its JSON value (for reading data the observation does not show).',
      schema: z.object({ expression: z.string().min(1) }),
      execute: async ({ expression }) => {
        const numbered = await browser.page();
        const value: unknown = await numbered.page.evaluate((source) => {
          // Indirect eval: runs the expression in the page's global scope.
          const result: unknown = (0, eval)(source);
          return result === undefined ? null : JSON.parse(JSON.stringify(result));
        }, expression);
        return { content: JSON.stringify(value, null, 2)?.slice(0, 20_000) ?? 'null' };
      },
    }),
  ];
}
