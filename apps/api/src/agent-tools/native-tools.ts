import { defineTool, type ToolDefinition } from '@lazyboy/agent';
import { nativeActionSchema, workerRoutes, type NativeActionRequestBody } from '@lazyboy/contracts';
import { z } from 'zod';
import type { ScreenProvider } from './screen-provider.js';
import { callWorker } from './worker-call.js';

export const COMPUTER_OBSERVE_TOOL = 'computer_observe';
export const COMPUTER_ACT_TOOL = 'computer_act';

const pointSchema = z.object({ x: z.number().int(), y: z.number().int() });

/** Flat for the model (an object at the top); which fields each action needs is the worker's schema's call. */
const actArgsSchema = z
  .object({
    action: z
      .enum(['click', 'type', 'key', 'click_at', 'drag'])
      .describe(
        'click {element, button?, double?} | type {text, element?, clear?, submit?} | key {keys, element?} | ' +
          'click_at {x, y, button?, double?} | drag {from, to, button?}',
      ),
    element: z.number().int().min(1).optional().describe('the element number from the latest computer_observe'),
    text: z.string().optional().describe('type: the text (into the element, or wherever the focus is)'),
    clear: z.boolean().optional().describe("type: replace the element's text first"),
    submit: z.boolean().optional().describe('type: press Enter afterwards'),
    keys: z.string().optional().describe('key: xdotool key names, e.g. Return, Escape, ctrl+s, alt+F4'),
    x: z.number().int().optional().describe('click_at: screen pixels (the screen is 1280×800)'),
    y: z.number().int().optional(),
    from: pointSchema.optional().describe('drag: start point in screen pixels'),
    to: pointSchema.optional().describe('drag: end point in screen pixels'),
    button: z.enum(['left', 'middle', 'right']).optional(),
    double: z.boolean().optional().describe('click, click_at: a double click'),
  })
  .superRefine((args, issues) => {
    const checked = nativeActionSchema.safeParse(actionFields(args));
    if (checked.success) return;
    for (const issue of checked.error.issues) {
      issues.addIssue({ code: 'custom', path: issue.path, message: `${args.action}: ${issue.message}` });
    }
  });
type ActArgs = z.infer<typeof actArgsSchema>;

const FIELDS: Record<ActArgs['action'], readonly (keyof ActArgs)[]> = {
  click: ['element', 'button', 'double'],
  type: ['element', 'text', 'clear', 'submit'],
  key: ['keys', 'element'],
  click_at: ['x', 'y', 'button', 'double'],
  drag: ['from', 'to', 'button'],
};

/** The fields of the chosen action, as the worker takes them. */
function actionFields(args: ActArgs): Record<string, unknown> {
  const action: Record<string, unknown> = { kind: args.action };
  for (const field of FIELDS[args.action]) if (args[field] !== undefined) action[field] = args[field];
  return action;
}

/** The worker's action for arguments the tool's schema accepted (its refinement checked these same fields). */
function nativeAction(args: ActArgs): NativeActionRequestBody {
  return nativeActionSchema.parse(actionFields(args));
}

const observeSchema = z.object({});

/**
 * computer_observe / computer_act: the desktop outside the browser (file pickers, dialogs, other programs)
 * through the accessibility tree (AT-SPI), with xdotool for keys and coordinates as the last resort.
 */
export function nativeTools(screens: ScreenProvider): ToolDefinition[] {
  // The observation the model last read; element actions carry it so a changed desktop refuses old numbers.
  let latestGeneration: number | undefined;
  const observe = defineTool({
    name: COMPUTER_OBSERVE_TOOL,
    kind: 'desktop',
    description:
      "Look at the computer's desktop outside the web page: its windows and their controls (buttons, fields, menus, " +
      'file pickers, dialogs) numbered 1…N for computer_act. For web pages use the browser tool instead.',
    schema: observeSchema,
    execute: async (_args, ctx) => {
      const answer = await callWorker(screens, { tool: COMPUTER_OBSERVE_TOOL, route: workerRoutes.nativeObserve, body: {} }, ctx);
      if (!answer.ok) return answer.outcome;
      latestGeneration = answer.value.generation;
      const cut = answer.value.truncated ? '\n(the list was cut: close windows you no longer need)' : '';
      return { content: `${answer.value.observation}${cut}` };
    },
  });
  const act = defineTool({
    name: COMPUTER_ACT_TOOL,
    kind: 'desktop',
    description:
      'Act on the desktop outside the web page: click or type into a control numbered by the latest computer_observe, ' +
      'press keys, or (last resort, for canvases and controls without a number) click or drag at screen coordinates ' +
      '(1280×800). Clicks on the browser window are refused: use the browser tool for web pages. Returns what was done ' +
      'and a fresh observation.',
    schema: actArgsSchema,
    execute: async (args, ctx) => {
      const base = nativeAction(args);
      const action = 'element' in base && latestGeneration !== undefined ? { ...base, generation: latestGeneration } : base;
      const answer = await callWorker(screens, { tool: COMPUTER_ACT_TOOL, route: workerRoutes.nativeAct, body: { action } }, ctx);
      if (!answer.ok) return answer.outcome;
      latestGeneration = answer.value.generation;
      return { content: `${answer.value.summary}\n\n${answer.value.observation}` };
    },
  });
  return [observe, act];
}
