import { defineTool, type ToolDefinition, type ToolOutcome } from '@lazyboy/agent';
import {
  browserActionNames,
  browserRoutes,
  browserActionSchemas,
  type BrowserActionName,
  type BrowserActionResponse,
  type ContentPart,
} from '@lazyboy/contracts';
import { z } from 'zod';
import type { ScreenProvider } from './screen-provider.js';
import { callWorker } from './worker-call.js';

export const BROWSER_TOOL = 'browser';

const actionSchema = z.enum(browserActionNames as [BrowserActionName, ...BrowserActionName[]]);

/**
 * One flat object rather than a union per action: providers want an object at the top of a tool's
 * parameters. Which fields each action needs is checked against the worker's own request schemas.
 */
const browserArgsSchema = z
  .object({
    action: actionSchema.describe(
      'navigate {url} | observe | click {element} | type {element, text, submit?, clear?} | select {element, label} | ' +
        'scroll {direction, amount?} | key {keys} | back | forward | tabs {op, index?, url?} | eval {expression}',
    ),
    url: z.string().optional().describe('navigate, tabs new: a full URL (https://…)'),
    element: z.number().int().min(1).optional().describe('click, type, select: the element number from the latest observation'),
    text: z.string().optional().describe('type: the text to enter'),
    submit: z.boolean().optional().describe('type: press Enter afterwards'),
    clear: z.boolean().optional().describe("type: replace the field's text (default true); false appends"),
    label: z.string().optional().describe('select: the visible label of the option'),
    direction: z.enum(['up', 'down']).optional().describe('scroll'),
    amount: z.number().int().min(1).optional().describe('scroll: pixels (default most of a window)'),
    keys: z.string().optional().describe('key: e.g. Enter, Escape, Control+A, PageDown'),
    op: z.enum(['list', 'switch', 'new', 'close']).optional().describe('tabs'),
    index: z.number().int().min(0).optional().describe('tabs switch/close: the tab index from tabs list'),
    expression: z.string().optional().describe('eval: a JavaScript expression whose JSON value you want'),
    screenshot: z.enum(['auto', 'always']).optional().describe('observe: always sends a screenshot even if nothing changed'),
  })
  .superRefine((args, issues) => {
    const checked = browserActionSchemas[args.action].safeParse({ ...workerRequest(args), slot: 0, fence: 0 });
    if (checked.success) return;
    for (const issue of checked.error.issues) {
      issues.addIssue({ code: 'custom', path: issue.path, message: `${args.action}: ${issue.message}` });
    }
  });
type BrowserArgs = z.infer<typeof browserArgsSchema>;

/** The fields each action sends (the worker's bodies are strict: a stray field is refused). */
const FIELDS: Record<BrowserActionName, readonly (keyof BrowserArgs)[]> = {
  navigate: ['url'],
  observe: ['screenshot'],
  click: ['element'],
  type: ['element', 'text', 'submit', 'clear'],
  select: ['element', 'label'],
  scroll: ['direction', 'amount'],
  key: ['keys'],
  back: [],
  forward: [],
  tabs: ['op', 'index', 'url'],
  eval: ['expression'],
};

function workerRequest(args: BrowserArgs): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of FIELDS[args.action]) if (args[field] !== undefined) body[field] = args[field];
  return body;
}

/**
 * `browser`: the agent's Chromium on its screen, read as numbered interactive elements (the numbers are
 * drawn on the screenshot), acted on by number. Every action answers with a fresh observation; the
 * screenshot comes along only when the page looks different from the last one the model was sent.
 */
export function browserTool(screens: ScreenProvider): ToolDefinition {
  // The observation the model last read: element actions carry it, so a renumbered page refuses them
  // (STALE_ELEMENT) instead of clicking whatever now has that number.
  let latestGeneration: number | undefined;
  return defineTool({
    name: BROWSER_TOOL,
    kind: 'browser',
    description:
      "Use the web browser on your computer's screen (the person can watch it). Pages are read as their interactive " +
      'elements numbered 1…N (the numbers are drawn on the screenshot) and their visible text; click, type and select ' +
      'name those numbers, which are valid until the next observation. Every action returns a fresh observation, and a ' +
      'screenshot when the page looks different. Actions: navigate (open a URL), observe (look again), click, type ' +
      '(replaces the field text; submit presses Enter), select (a dropdown option by label), scroll, key (press keys), ' +
      'back, forward, tabs (list, switch, new, close), eval (a JavaScript expression, for data the observation does not show).',
    schema: browserArgsSchema,
    execute: async (args, ctx) => {
      const body = workerRequest(args);
      const hasElement = 'element' in body;
      const answer = await callWorker(
        screens,
        {
          tool: BROWSER_TOOL,
          route: browserRoutes[args.action],
          body: { ...body, ...(hasElement && latestGeneration !== undefined ? { generation: latestGeneration } : {}) },
        },
        ctx,
      );
      if (!answer.ok) return answer.outcome;
      latestGeneration = answer.value.generation;
      return browserOutcome(args.action, answer.value);
    },
  });
}

function browserOutcome(action: BrowserActionName, response: BrowserActionResponse): ToolOutcome {
  const lines: string[] = [];
  const result = response.result as Record<string, unknown> | undefined;
  if (action === 'eval' && result) {
    const value = JSON.stringify(result['value'], null, 2) ?? 'undefined';
    lines.push(`Value${result['truncated'] ? ' (cut at 20,000 characters)' : ''}: ${value}`, '');
  }
  if (action === 'select' && result) lines.push(`Selected: ${String(result['selected'])}`, '');
  if ((action === 'back' || action === 'forward') && result && result['moved'] === false) {
    lines.push(`There was no page to go ${action} to.`, '');
  }
  if (response.tabs) {
    lines.push('Tabs:');
    for (const tab of response.tabs)
      lines.push(`  ${tab.index}: ${tab.title || '(untitled)'} — ${tab.url}${tab.active ? ' (active)' : ''}`);
    lines.push('');
  }
  if (response.control === 'user') {
    lines.push('A person is using this screen right now: you can look, but wait until they hand it back before acting.', '');
  }
  lines.push(response.observation);
  const text = lines.join('\n');
  const content: string | ContentPart[] = response.screenshot
    ? [
        { type: 'text', text },
        { type: 'image', mimeType: response.screenshot.mimeType, dataBase64: response.screenshot.data },
      ]
    : text;
  return { content, state: { browserUrl: response.url } };
}
