import { defineTool, type ToolDefinition } from '@lazyboy/agent';
import { workerRoutes } from '@lazyboy/contracts';
import { z } from 'zod';
import type { ScreenProvider } from './screen-provider.js';
import { callWorker } from './worker-call.js';

export const WAIT_TOOL = 'wait';

const waitSchema = z.object({
  seconds: z.number().min(0).max(60),
  until: z.enum(['screen_changes']).optional(),
});

/**
 * wait: a controlled pause on the computer (a page loading, a download, a person finishing something).
 * Exempt from the identical-round guard: waiting again for the same thing is legitimate.
 */
export function waitTool(screens: ScreenProvider): ToolDefinition {
  return defineTool({
    name: WAIT_TOOL,
    // Not 'read': it must keep its place in the batch (wait, then look), not run alongside reads.
    kind: 'command',
    description:
      'Pause for up to 60 seconds while something on the computer finishes (a page loading, a download, a dialog). ' +
      "With until 'screen_changes' it returns as soon as the screen changes. Use it rather than sleep in the shell.",
    schema: waitSchema,
    execute: async ({ seconds, until }, ctx) => {
      const answer = await callWorker(
        screens,
        {
          tool: WAIT_TOOL,
          route: workerRoutes.wait,
          body: { seconds, ...(until ? { until } : {}) },

          timeoutMs: seconds * 1000 + 30_000,
        },
        ctx,
      );
      if (!answer.ok) return { ...answer.outcome, controlledWait: true };
      const waited = (answer.value.waitedMs / 1000).toFixed(1);
      const change = until ? (answer.value.changed ? '; the screen changed' : '; the screen did not change') : '';
      return { content: `waited ${waited} s${change}`, controlledWait: true };
    },
  });
}
