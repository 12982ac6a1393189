import { z } from 'zod';
import type { PendingQuestion } from '../loop/directives.js';
import type { HumanAnswer, HumanBroker } from '../ports.js';
import { defineTool, type ToolContext, type ToolDefinition, type ToolOutcome } from './tool.js';

// Human gates. Each must be called alone in its batch, so that the answer can shape what follows.

export interface HumanToolOptions {
  /**
   * Runs before a browser hand-off asks the person: typically makes the browser visible (relaunching a
   * headless one headed on the same page). A failure fails the hand-off closed.
   */
  beforeHandoff?: (signal: AbortSignal) => Promise<void>;
  /** Runs after a browser hand-off resumes: typically a fresh DOM snapshot for the model. */
  afterHandoff?: (signal: AbortSignal) => Promise<string>;
}

const questionSchema = z.object({ question: z.string().min(1) });
const confirmSchema = z.object({
  action: z.string().min(1).describe('What you are about to do'),
  draft: z.string().optional().describe('The exact text or details awaiting approval'),
});
const handoffSchema = z.object({
  reason: z.string().min(1),
  timeout_secs: z.number().int().min(1).max(3_600).optional(),
});
const takeoverSchema = z.object({ reason: z.string().min(1) });

/** Turns a person's answer into the call's result text. */
export function answerToResult(question: Pick<PendingQuestion, 'kind'>, answer: HumanAnswer): ToolOutcome {
  switch (answer.kind) {
    case 'answer':
      return { content: `The user answered: ${answer.text}` };
    case 'approved':
      return { content: 'approved: the user approved exactly this. Go ahead.' };
    case 'denied':
      return { content: `denied: the user did not approve${answer.reason ? ` (${answer.reason})` : ''}. Do not do it.` };
    case 'resumed':
      return {
        content: `The user finished and handed back control${answer.note ? `: ${answer.note}` : ''}. Observe the current state.`,
      };
    case 'aborted':
      return {
        content: `aborted: the user aborted the ${question.kind}${answer.reason ? ` (${answer.reason})` : ''}.`,
        isError: true,
        directive: { kind: 'blocked', reason: `the user aborted the ${question.kind}` },
      };
    case 'timeout':
      return {
        content: `timed out: nobody answered the ${question.kind} in time.`,
        isError: true,
        directive: { kind: 'blocked', reason: `nobody answered the ${question.kind} in time` },
      };
  }
}

export function humanTools(broker: HumanBroker, options: HumanToolOptions = {}): ToolDefinition[] {
  const ask = async (question: PendingQuestion, context: ToolContext, timeoutMs?: number): Promise<ToolOutcome> => {
    if (broker.mode === 'turn-ending') return { content: 'waiting for the user', directive: { kind: 'park', question } };
    if (question.kind === 'handoff' && options.beforeHandoff) {
      try {
        await options.beforeHandoff(context.signal);
      } catch (error) {
        const reason = `the browser could not be handed over: ${(error as Error).message}`;
        return { content: reason, isError: true, directive: { kind: 'blocked', reason } };
      }
    }
    const answer = await broker.ask(timeoutMs === undefined ? question : { ...question, timeoutMs }, context.signal);
    const outcome = answerToResult(question, answer);
    if (question.kind === 'handoff' && answer.kind === 'resumed' && options.afterHandoff) {
      return { ...outcome, content: `${outcome.content as string}\n\n${await options.afterHandoff(context.signal)}` };
    }
    return outcome;
  };

  return [
    defineTool({
      name: 'request_user_input',
      kind: 'human',
      alone: true,
      description: 'Ask the user for information you cannot find yourself (a choice, a missing detail). Call it alone.',
      schema: questionSchema,
      execute: ({ question }, ctx) =>
        ask({ callId: ctx.callId, tool: 'request_user_input', kind: 'input', prompt: question }, ctx),
    }),
    defineTool({
      name: 'request_user_confirm',
      kind: 'human',
      alone: true,
      description:
        'Ask the user to approve an irreversible or public action (posting, sending, paying, deleting) before doing it. ' +
        'Show the exact draft or action. Call it alone; act only on "approved".',
      schema: confirmSchema,
      execute: ({ action, draft }, ctx) =>
        ask(
          {
            callId: ctx.callId,
            tool: 'request_user_confirm',
            kind: 'confirm',
            prompt: action,
            ...(draft === undefined ? {} : { draft }),
          },
          ctx,
        ),
    }),
    defineTool({
      name: 'browser_handoff',
      kind: 'human',
      alone: true,
      description:
        'Hand the browser to the user for a login wall, a one-time code or a CAPTCHA, and wait until they hand it back. ' +
        'Call it alone; after it returns, observe the page again.',
      schema: handoffSchema,
      execute: ({ reason, timeout_secs }, ctx) =>
        ask(
          { callId: ctx.callId, tool: 'browser_handoff', kind: 'handoff', prompt: reason },
          ctx,
          timeout_secs && timeout_secs * 1_000,
        ),
    }),
    defineTool({
      name: 'request_takeover',
      kind: 'human',
      alone: true,
      description:
        'Ask the user to take over the desktop (login, 2FA, CAPTCHA, anything only a person should do) and wait for the ' +
        'release. Call it alone; continue from the current screen afterwards.',
      schema: takeoverSchema,
      execute: ({ reason }, ctx) => ask({ callId: ctx.callId, tool: 'request_takeover', kind: 'takeover', prompt: reason }, ctx),
    }),
  ];
}
