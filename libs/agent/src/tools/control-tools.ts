import { z } from 'zod';
import { planStepSchema } from '../loop/plan.js';
import { defineTool, type ToolDefinition } from './tool.js';

// The completion contract: how the model says it is finished, stuck, or has something to tell the user.
// These tools only hand a directive to the loop; the loop decides what happens next.

export const reportDone = defineTool({
  name: 'report_done',
  kind: 'control',
  // Terminal, like a human gate: called beside other tools it would end the turn on results it never saw.
  alone: true,
  description:
    'Finish the task. Call this only after the work is really done and verified with tools; give a short summary of ' +
    'what was done and where the results are. Call it alone. Not for greetings or small talk: answer those in plain text.',
  schema: z.object({ summary: z.string().min(1).describe('What was done, for the user') }),
  execute: async ({ summary }) => ({ content: 'done', directive: { kind: 'done', summary } }),
});

export const reportBlocked = defineTool({
  name: 'report_blocked',
  kind: 'control',
  alone: true,
  description:
    'Stop because you cannot proceed (missing access, an error you cannot fix, a decision only the user can make). ' +
    'Say exactly what blocks you and what the user could do. Call it alone.',
  schema: z.object({ reason: z.string().min(1).describe('What blocks the task and what would unblock it') }),
  execute: async ({ reason }) => ({ content: 'blocked', directive: { kind: 'blocked', reason } }),
});

export const sendMessage = defineTool({
  name: 'send_message',
  kind: 'control',
  description:
    'Tell the user something now (an opening line for an action task, a finding, a result) and keep working. ' +
    'This is the only text the user sees while you work.',
  schema: z.object({ text: z.string().min(1) }),
  execute: async ({ text }) => ({ content: 'sent', directive: { kind: 'say', text, progress: false } }),
});

export const reportProgress = defineTool({
  name: 'report_progress',
  kind: 'control',
  description: 'Report progress (what you found, what comes next) and keep working. Same as send_message, marked as progress.',
  schema: z.object({ text: z.string().min(1) }),
  execute: async ({ text }) => ({ content: 'noted', directive: { kind: 'say', text, progress: true } }),
});

export const updatePlan = defineTool({
  name: 'update_plan',
  kind: 'control',
  description:
    'Set or update a short checklist (2–7 steps) for multi-stage work; mark steps active or done as you go. Dropping ' +
    'or renaming steps of the current plan is a revision and needs a reason. No approval is needed.',
  schema: z.object({
    steps: z.array(planStepSchema).min(1).max(12),
    reason: z.string().min(1).optional().describe('Why the plan changed (required when revising)'),
  }),
  execute: async ({ steps, reason }) => ({
    content: 'plan updated',
    directive: reason === undefined ? { kind: 'plan', steps } : { kind: 'plan', steps, reason },
  }),
});

export const CONTROL_TOOLS: readonly ToolDefinition[] = [reportDone, reportBlocked, sendMessage, reportProgress, updatePlan];
