import { z } from 'zod';
import type { AgentEvent, AgentEventHandler } from '../loop/events.js';
import type { BackgroundJobs } from '../loop/background.js';
import type { RunOutcome } from '../loop/outcome.js';
import { defineTool, type ToolDefinition, type ToolOutcome } from './tool.js';

/** What a subagent needs of a runtime (structural, so this module does not import the runtime). */
export interface ChildRuntime {
  setEventHandler(handler: AgentEventHandler): void;
  steer(text: string): void;
  run(input: { message: string; signal: AbortSignal }): Promise<{ outcome: RunOutcome }>;
}

interface Child {
  runtime: ChildRuntime;
  controller: AbortController;
  lastProgress: string;
}

/**
 * spawn_subagent / check_subagent / message_subagent / stop_subagent. A subagent is a child runtime with
 * the parent's working tools, run as a background job: spawning returns at once, and its completion is
 * told to the parent like any other background job (no polling needed).
 */
export function subagentTools(jobs: BackgroundJobs, createChild: () => ChildRuntime): ToolDefinition[] {
  const children = new Map<string, Child>();
  const find = (id: string): Child | undefined => children.get(id);

  return [
    defineTool({
      name: 'spawn_subagent',
      kind: 'control',
      description:
        'Start a helper agent on a self-contained sub-task; returns its id at once and it works in the background. ' +
        'You are told when it finishes: do not poll. Give it everything it needs in `task`.',
      schema: z.object({ task: z.string().min(1), label: z.string().min(1).max(60).optional() }),
      execute: async ({ task, label }) => {
        const runtime = createChild();
        const controller = new AbortController();
        const child: Child = { runtime, controller, lastProgress: '' };
        runtime.setEventHandler((event: AgentEvent) => {
          if (event.type === 'message') child.lastProgress = event.text;
        });
        const work = runtime.run({ message: task, signal: controller.signal }).then(({ outcome }) => describeOutcome(outcome));
        const id = jobs.start('subagent', label ?? task.slice(0, 60), work);
        children.set(id, child);
        return { content: `subagent ${id} started` };
      },
    }),
    defineTool({
      name: 'check_subagent',
      kind: 'read',
      description: "A running subagent's status and latest progress.",
      schema: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        const job = jobs.get(id);
        if (!job || job.kind !== 'subagent') return { content: `no subagent ${id}`, isError: true };
        const progress = find(id)?.lastProgress;
        return { content: `${id}: ${job.status}${progress ? `; latest progress: ${progress}` : ''}` };
      },
    }),
    defineTool({
      name: 'message_subagent',
      kind: 'control',
      description: 'Send guidance to a running subagent; it reads it at its next step.',
      schema: z.object({ id: z.string(), text: z.string().min(1) }),
      execute: async ({ id, text }) => {
        const child = find(id);
        if (!child || jobs.get(id)?.status !== 'running') return { content: `no running subagent ${id}`, isError: true };
        child.runtime.steer(text);
        return { content: `sent to ${id}` };
      },
    }),
    defineTool({
      name: 'stop_subagent',
      kind: 'control',
      description: 'Stop a running subagent.',
      schema: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        const child = find(id);
        if (!child || jobs.get(id)?.status !== 'running') return { content: `no running subagent ${id}`, isError: true };
        child.controller.abort();
        return { content: `stopping ${id}` };
      },
    }),
  ];
}

function describeOutcome(outcome: RunOutcome): ToolOutcome {
  switch (outcome.status) {
    case 'done':
      return { content: `done: ${outcome.summary}` };
    case 'blocked':
      return { content: `blocked: ${outcome.reason}`, isError: true };
    case 'cancelled':
      return { content: 'stopped before it finished', isError: true };
    case 'waiting_input':
    case 'waiting_takeover':
      return { content: `needs the user: ${outcome.question.prompt}`, isError: true };
  }
}
