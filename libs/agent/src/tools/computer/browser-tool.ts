import {
  browserActionNames,
  browserActionSchemas,
  clickCountSchema,
  keyModifierSchema,
  pointerButtonSchema,
  scrollDirectionSchema,
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
      'navigate {url} | observe | click {element or x,y; button?, count?, modifiers?} | hover {element or x,y} | ' +
        'drag {element or x,y → toElement or toX,toY} | type {element, text, submit?, clear?} | select {element, label} | ' +
        'scroll {direction, amount?, element?} | key {keys} | back | forward | tabs {op, index?, url?} | eval {expression}',
    ),
    url: z.string().optional().describe('navigate, tabs new: a full URL (https://…)'),
    element: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('click, hover, drag (its start), type, select, scroll: an element number from an observation'),
    x: z
      .number()
      .min(0)
      .optional()
      .describe(
        'click, hover, drag: with element, CSS px from its top-left corner (a canvas, a chart, a slider); alone, in the window',
      ),
    y: z.number().min(0).optional().describe('click, hover, drag: as x, downwards'),
    button: pointerButtonSchema.optional().describe('click: default left'),
    count: clickCountSchema.optional().describe('click: 2 double-clicks (edit a cell, select a word), 3 triple-clicks'),
    modifiers: z
      .array(keyModifierSchema)
      .optional()
      .describe('click, drag: keys held down, e.g. ["Control"] to add a row to a selection'),
    toElement: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('drag: the element where it ends (with toX,toY: that point inside it)'),
    toX: z.number().min(0).optional().describe('drag: where it ends, as x'),
    toY: z.number().min(0).optional().describe('drag: where it ends, as y'),
    text: z.string().optional().describe('type: the text to enter'),
    submit: z.boolean().optional().describe('type: press Enter afterwards'),
    clear: z.boolean().optional().describe("type: replace the field's text (default true); false appends"),
    label: z.string().optional().describe('select: the visible label of the option'),
    direction: scrollDirectionSchema.optional().describe('scroll'),
    amount: z.number().int().min(1).optional().describe('scroll: pixels (default most of the window, or of the element)'),
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
  click: ['element', 'x', 'y', 'button', 'count', 'modifiers'],
  hover: ['element', 'x', 'y'],
  drag: ['element', 'x', 'y', 'toElement', 'toX', 'toY', 'modifiers'],
  type: ['element', 'text', 'submit', 'clear'],
  select: ['element', 'label'],
  scroll: ['direction', 'amount', 'element'],
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
  'Use the web browser (on a computer with a screen, the person can watch it). Pages are read as numbered elements ' +
  'and their visible text; an element keeps its number while it stays on the page, and a number that is gone is ' +
  'refused. Every action returns a fresh observation (where there is a screen, with a screenshot that has the numbers ' +
  'drawn on it when the page looks different). Actions: navigate (open a URL), observe (look again), click (any ' +
  'button, double or triple, with keys held; at x,y inside an element or in the window), hover (menus, tooltips), ' +
  'drag (sortable lists, sliders, boards, drawing), type (replaces the field text; submit presses Enter), select (a ' +
  'dropdown option by label), scroll (the page, or one element: a list, a terms box), key (press keys), back, ' +
  'forward, tabs (list, switch, new, close), eval (a JavaScript expression, for data the observation does not show).';

export interface BrowserTool {
  tool: ToolDefinition;
  /**
   * A fresh observation through the tool's own path (so its element numbers are the ones the tool will
   * send next), rendered as the model reads it: for the page handed back after a browser hand-off.
   */
  observe(ctx: CallContext): Promise<ToolOutcome>;
}

/**
 * `browser`: pages read as numbered elements, acted on by number or at a point. Every action answers with a
 * fresh observation.
 */
export function browserTool(transport: BrowserTransport): BrowserTool {
  const act = async (args: BrowserArguments, ctx: CallContext): Promise<ToolOutcome> => {
    const answer = await transport.act(args.action, actionBody(args) as BrowserActionBody, ctx);
    if (!answer.ok) return answer.outcome;
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
