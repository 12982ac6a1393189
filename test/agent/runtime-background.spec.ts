import { describe, expect, it } from '@jest/globals';
import { backgroundAfter, defineTool, type ToolOutcome } from '@lazyboy/agent';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { z } from 'zod';
import { sleep } from '../support/index.js';
import { echoTool, harness, lastMessage } from './harness.js';

/** A command tool that finishes in time or goes to the background after `blockUntilMs`. */
function commandTool(durationMs: number, blockUntilMs: number) {
  return defineTool({
    name: 'shell',
    kind: 'command',
    description: 'run a command',
    schema: z.object({ command: z.string() }),
    execute: async ({ command }, ctx) => {
      const work = sleep(durationMs).then((): ToolOutcome => ({ content: `${command}: exit 0` }));
      return backgroundAfter(ctx, command, work, blockUntilMs);
    },
  });
}

const text = (r: ReceivedRequest) => r.messages.map((m) => ('content' in m ? String(m.content) : '')).join('\n');

describe('runtime: background work (seed 003)', () => {
  it('returns a quick command in the foreground', async () => {
    const h = await harness(
      [
        { toolCalls: [{ name: 'shell', arguments: { command: 'ls' } }] },
        { toolCalls: [{ name: 'report_done', arguments: { summary: 'listed' } }] },
      ],
      { tools: [commandTool(5, 500)] },
    );
    try {
      await h.runtime.run({ message: 'list files' });
      expect(lastMessage(h, 1)).toMatchObject({ role: 'tool', content: 'ls: exit 0' });
    } finally {
      await h.close();
    }
  });

  it('waits when the model yields while a command runs, then revives it with the result', async () => {
    const h = await harness(
      [
        { toolCalls: [{ name: 'shell', arguments: { command: 'npm test' } }] },
        { text: 'The tests are running; I will report when they finish.' },
        { toolCalls: [{ name: 'report_done', arguments: { summary: 'All tests passed.' } }] },
      ],
      { tools: [commandTool(150, 20)] },
    );
    try {
      const { outcome } = await h.runtime.run({ message: 'run the tests' });
      expect(outcome).toMatchObject({ status: 'done', summary: 'All tests passed.' });
      expect(h.server.requests).toHaveLength(3);
      const revival = lastMessage(h, 2);
      expect(revival).toMatchObject({ role: 'user' });
      expect(String(revival?.content)).toMatch(/^\[background\] command job-1 \(npm test\) finished:\nnpm test: exit 0/);
      expect(String(lastMessage(h, 1)?.content)).toContain('continues in the background as job-1');
      expect(h.events).toContainEqual(expect.objectContaining({ type: 'status', status: 'waiting_for_background' }));
    } finally {
      await h.close();
    }
  });

  it('runs a subagent in the background and tells the parent when it is done', async () => {
    // One server serves both conversations; the script answers by who is asking.
    const script = (r: ReceivedRequest): Turn => {
      const isChild = r.messages.some((m) => m.role === 'user' && m.content === 'Count the PDF files in ~/inbox');
      if (isChild) return { toolCalls: [{ name: 'report_done', arguments: { summary: 'There are 3 PDF files.' } }] };
      if (!text(r).includes('[background]')) {
        return r.messages.some((m) => m.role === 'tool')
          ? { text: 'Waiting for the helper.' }
          : {
              toolCalls: [{ name: 'spawn_subagent', arguments: { task: 'Count the PDF files in ~/inbox', label: 'count PDFs' } }],
            };
      }
      return { toolCalls: [{ name: 'report_done', arguments: { summary: 'The helper counted 3 PDFs.' } }] };
    };
    const h = await harness(script, { subagents: true });
    try {
      const { outcome } = await h.runtime.run({ message: 'How many PDFs are in my inbox?' });
      expect(outcome).toMatchObject({ status: 'done', summary: 'The helper counted 3 PDFs.' });
      const parentRequests = h.server.requests.filter((r) =>
        r.messages.some((m) => m.role === 'user' && m.content === 'How many PDFs are in my inbox?'),
      );
      expect(String(parentRequests.at(-1)!.messages.at(-1)?.content)).toContain(
        'subagent agent-1 (count PDFs) finished:\ndone: There are 3 PDF files.',
      );
      expect(h.server.requests[0]!.tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['spawn_subagent', 'check_subagent', 'message_subagent', 'stop_subagent']),
      );
    } finally {
      await h.close();
    }
  });

  it('stops a subagent on request', async () => {
    let childRequests = 0;
    const script = async (r: ReceivedRequest): Promise<Turn> => {
      if (r.messages.some((m) => m.role === 'user' && m.content === 'Watch the build forever')) {
        childRequests++;
        return { delayMs: 50, toolCalls: [{ name: 'send_message', arguments: { text: `still watching ${childRequests}` } }] };
      }
      const results = r.messages.filter((m) => m.role === 'tool').length;
      if (results === 0) return { toolCalls: [{ name: 'spawn_subagent', arguments: { task: 'Watch the build forever' } }] };
      if (results === 1) return { toolCalls: [{ name: 'stop_subagent', arguments: { id: 'agent-1' } }] };
      if (!text(r).includes('[background]')) return { text: 'Stopped it.' };
      return { toolCalls: [{ name: 'report_done', arguments: { summary: 'stopped the watcher' } }] };
    };
    const h = await harness(script, { subagents: true });
    try {
      const { outcome } = await h.runtime.run({ message: 'start a watcher, then stop it' });
      expect(outcome).toMatchObject({ status: 'done', summary: 'stopped the watcher' });
      const parentLast = h.server.requests
        .filter((r) => r.messages.some((m) => m.content === 'start a watcher, then stop it'))
        .at(-1)!;
      expect(String(parentLast.messages.at(-1)?.content)).toContain('stopped before it finished');
    } finally {
      await h.close();
    }
  });

  it('checks on a running subagent and steers it with a message', async () => {
    let childRound = 0;
    const script = async (r: ReceivedRequest): Promise<Turn> => {
      const isChild = r.messages.some((m) => m.role === 'user' && m.content === 'Collect prices');
      if (isChild) {
        const steered = r.messages.some((m) => m.role === 'user' && m.content === 'Only shops in Taipei.');
        if (steered) return { toolCalls: [{ name: 'report_done', arguments: { summary: 'Taipei prices collected' } }] };
        childRound++;
        // Real work each round (a different lookup), so no guard stops the child while it waits to be steered.
        return {
          delayMs: 20,
          toolCalls: [
            ...(childRound === 1 ? [{ name: 'send_message', arguments: { text: 'looking at shop list' } }] : []),
            { name: 'lookup', arguments: { key: `shop-${childRound}` } },
          ],
        };
      }
      const results = r.messages.filter((m) => m.role === 'tool').length;
      if (results === 0) return { toolCalls: [{ name: 'spawn_subagent', arguments: { task: 'Collect prices' } }] };
      if (results === 1) return { delayMs: 150, toolCalls: [{ name: 'check_subagent', arguments: { id: 'agent-1' } }] };
      if (results === 2)
        return { toolCalls: [{ name: 'message_subagent', arguments: { id: 'agent-1', text: 'Only shops in Taipei.' } }] };
      if (!text(r).includes('[background]')) return { text: 'Waiting for the helper.' };
      return { toolCalls: [{ name: 'report_done', arguments: { summary: 'done' } }] };
    };
    const h = await harness(script, { subagents: true, tools: [echoTool()] });
    try {
      const { outcome } = await h.runtime.run({ message: 'compare prices' });
      expect(outcome.status).toBe('done');
      const parent = h.server.requests.filter((r) => r.messages.some((m) => m.content === 'compare prices'));
      const results = parent.at(-1)!.messages.flatMap((m) => (m.role === 'tool' ? [String(m.content)] : []));
      expect(results[1]).toBe('agent-1: running; latest progress: looking at shop list');
      expect(results[2]).toBe('sent to agent-1');
      expect(String(parent.at(-1)!.messages.at(-1)?.content)).toContain('done: Taipei prices collected');
    } finally {
      await h.close();
    }
  });
});
