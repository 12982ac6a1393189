import {
  browserActionNames,
  browserActionSchemas,
  type BrowserActionBody,
  type BrowserActionName,
  type ContentPart,
} from '@lazyboy/contracts';
import { z } from 'zod';
import { defineTool, type ToolDefinition, type ToolOutcome } from '../tool.js';
import type { BrowserActionResult, BrowserTransport, CallContext } from './transport.js';

export const BROWSER_TOOL = 'browser';

const actionSchema = z.enum(browserActionNames as [BrowserActionName, ...BrowserActionName[]]);

/**
 * One flat object rather than a union per action: providers want an object at the top of a tool's
 * parameters. Which fields each action needs is checked against the worker API's own request schemas,
 * whichever transport carries the action out.
 */
export const browserArgumentsSchema = z
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
    const checked = browserActionSchemas[args.action].safeParse({ ...actionBody(args), slot: 0, fence: 0 });
    if (checked.success) return;
    for (const issue of checked.error.issues) {
      issues.addIssue({ code: 'custom', path: issue.path, message: `${args.action}: ${issue.message}` });
    }
  });
export type BrowserArguments = z.infer<typeof browserArgumentsSchema>;

/** The fields each action sends (the worker's bodies are strict: a stray field is refused). */
const FIELDS: Record<BrowserActionName, readonly (keyof BrowserArguments)[]> = {
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

function actionBody(args: BrowserArguments): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of FIELDS[args.action]) if (args[field] !== undefined) body[field] = args[field];
  return body;
}

export const BROWSER_DESCRIPTION =
  'Use the web browser (on a computer with a screen, the person can watch it). Pages are read as their interactive ' +
  'elements numbered 1…N and their visible text; click, type and select name those numbers, which are valid until the ' +
  'next observation. Every action returns a fresh observation (where there is a screen, with a screenshot that has the ' +
  'numbers drawn on it when the page looks different). Actions: navigate (open a URL), observe (look again), click, ' +
  'type (replaces the field text; submit presses Enter), select (a dropdown option by label), scroll, key (press keys), ' +
  'back, forward, tabs (list, switch, new, close), eval (a JavaScript expression, for data the observation does not show).';

export interface BrowserTool {
  tool: ToolDefinition;
  /**
   * A fresh observation through the tool's own path (so its element numbers are the ones the tool will
   * send next), rendered as the model reads it: for the page handed back after a browser hand-off.
   */
  observe(ctx: CallContext): Promise<ToolOutcome>;
}

/**
 * `browser`: pages read as numbered interactive elements, acted on by number. Every action answers with a
 * fresh observation. Make one per run or session: it remembers the observation the model last read.
 */
export function browserTool(transport: BrowserTransport): BrowserTool {
  // The observation the model last read: element actions carry it, so a renumbered page refuses them
  // (STALE_ELEMENT) instead of clicking whatever now has that number.
  let latestGeneration: number | undefined;
  const act = async (args: BrowserArguments, ctx: CallContext): Promise<ToolOutcome> => {
    const body = actionBody(args);
    const withGeneration = 'element' in body && latestGeneration !== undefined ? { ...body, generation: latestGeneration } : body;
    const answer = await transport.act(args.action, withGeneration as BrowserActionBody, ctx);
    if (!answer.ok) return answer.outcome;
    latestGeneration = answer.value.generation;
    return renderBrowserResult(args.action, answer.value);
  };
  const tool = defineTool({
    name: BROWSER_TOOL,
    kind: 'browser',
    description: BROWSER_DESCRIPTION,
    schema: browserArgumentsSchema,
    execute: act,
  });
  return { tool, observe: (ctx) => act({ action: 'observe' }, ctx) };
}

/** A browser action's answer as the model reads it, whichever transport carried it out. */
export function renderBrowserResult(action: BrowserActionName, response: BrowserActionResult): ToolOutcome {
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
