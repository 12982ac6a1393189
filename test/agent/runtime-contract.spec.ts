import { describe, expect, it } from '@jest/globals';
import { defineTool } from '@lazyboy/agent';
import { z } from 'zod';
import { echoTool, harness, lastMessage, toolResults } from './harness.js';

describe('runtime: the completion contract (over HTTP to the scripted model)', () => {
  it('acts with a tool, verifies, and ends with report_done', async () => {
    const log: string[] = [];
    const h = await harness(
      [
        { toolCalls: [{ name: 'lookup', arguments: { key: 'weather' } }] },
        { toolCalls: [{ name: 'report_done', arguments: { summary: 'It is sunny.' } }] },
      ],
      { tools: [echoTool(log)] },
    );
    try {
      const { outcome } = await h.runtime.run({ message: 'What is the weather?' });
      expect(outcome).toEqual({ status: 'done', summary: 'It is sunny.', roundsUsed: 2 });
      expect(log).toEqual(['start weather', 'end weather']);
      expect(toolResults(h, 1)).toEqual(['value of weather']);
      expect(h.server.requests[0]!.tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['report_done', 'report_blocked', 'send_message', 'update_plan', 'lookup']),
      );
      const types = h.events.map((e) => e.type);
      expect(types).toEqual(expect.arrayContaining(['turn_started', 'model_request', 'tool_call', 'tool_result', 'done']));
      expect(types.at(-1)).toBe('done');
    } finally {
      await h.close();
    }
  });

  it('answers greetings in plain text with the tool list cleared', async () => {
    const h = await harness([{ text: '你好！有什麼可以幫你的？' }], { tools: [echoTool()] });
    try {
      const { outcome } = await h.runtime.run({ message: '你好' });
      expect(outcome).toMatchObject({ status: 'done', summary: '你好！有什麼可以幫你的？' });
      expect(h.server.requests[0]!.tools).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('answers a greeting of a later turn (a REPL, run --session) with the tool list cleared too', async () => {
    const h = await harness(
      [
        { toolCalls: [{ name: 'lookup', arguments: { key: 'weather' } }] },
        { toolCalls: [{ name: 'report_done', arguments: { summary: 'It is sunny.' } }] },
        { text: 'Hi again!' },
        // An answer to a question is not small talk: the tools stay.
        { toolCalls: [{ name: 'request_user_input', arguments: { question: 'Which city?' } }] },
        { toolCalls: [{ name: 'report_done', arguments: { summary: 'Booked.' } }] },
      ],
      { tools: [echoTool()] },
    );
    try {
      const first = await h.runtime.run({ message: 'What is the weather?' });
      const second = await h.runtime.run({ message: 'hi', resume: first.checkpoint });
      expect(second.outcome).toMatchObject({ status: 'done', summary: 'Hi again!' });
      expect(h.server.requests[2]!.tools).toEqual([]);
      const third = await h.runtime.run({ message: 'Book the trip', resume: second.checkpoint });
      expect(third.outcome.status).toBe('waiting_input');
      await h.runtime.run({ message: 'ok', resume: third.checkpoint });
      expect(h.server.requests[4]!.tools.map((t) => t.name)).toContain('lookup');
    } finally {
      await h.close();
    }
  });

  it('refuses report_done beside other calls: it must be alone, so nothing in the batch runs', async () => {
    const log: string[] = [];
    const h = await harness(
      [
        {
          toolCalls: [
            { name: 'lookup', arguments: { key: 'weather' } },
            { name: 'report_done', arguments: { summary: 'It is sunny.' } },
          ],
        },
        { toolCalls: [{ name: 'lookup', arguments: { key: 'weather' } }] },
        { toolCalls: [{ name: 'report_done', arguments: { summary: 'It is sunny.' } }] },
      ],
      { tools: [echoTool(log)] },
    );
    try {
      const { outcome } = await h.runtime.run({ message: 'What is the weather?' });
      expect(toolResults(h, 1)).toEqual([
        expect.stringContaining('report_done must be called alone'),
        expect.stringContaining('report_done must be called alone'),
      ]);
      expect(log).toEqual(['start weather', 'end weather']);
      expect(outcome).toMatchObject({ status: 'done', summary: 'It is sunny.', roundsUsed: 3 });
    } finally {
      await h.close();
    }
  });

  it('ends with report_blocked and the reason', async () => {
    const h = await harness([{ toolCalls: [{ name: 'report_blocked', arguments: { reason: 'no access to the drive' } }] }]);
    try {
      const { outcome } = await h.runtime.run({ message: 'Copy the report to the shared drive' });
      expect(outcome).toMatchObject({ status: 'blocked', code: 'reported', reason: 'no access to the drive' });
      expect(h.events.at(-1)?.type).toBe('blocked');
    } finally {
      await h.close();
    }
  });

  it('lets send_message and report_progress speak while the loop continues', async () => {
    const h = await harness([
      { toolCalls: [{ name: 'send_message', arguments: { text: 'Checking the calendar now.' } }] },
      { toolCalls: [{ name: 'report_progress', arguments: { text: 'Found two free slots.' } }] },
      { toolCalls: [{ name: 'report_done', arguments: { summary: 'Booked 9:30.' } }] },
    ]);
    try {
      const { outcome } = await h.runtime.run({ message: 'Book a meeting room for tomorrow morning' });
      expect(outcome).toMatchObject({ status: 'done', roundsUsed: 3 });
      expect(h.events.filter((e) => e.type === 'message')).toEqual([
        { type: 'message', text: 'Checking the calendar now.', progress: false },
        { type: 'message', text: 'Found two free slots.', progress: true },
      ]);
    } finally {
      await h.close();
    }
  });

  it('ends a turn on plain text only when no plan step is open', async () => {
    const steps = [
      { title: 'Open the page', status: 'done' },
      { title: 'Fill the form', status: 'active' },
    ];
    const h = await harness(
      [
        {
          toolCalls: [
            { name: 'update_plan', arguments: { steps } },
            { name: 'lookup', arguments: { key: 'page' } },
          ],
        },
        { text: 'I have opened the page.' },
        {
          toolCalls: [
            { name: 'lookup', arguments: { key: 'form' } },
            { name: 'update_plan', arguments: { steps: steps.map((s) => ({ ...s, status: 'done' })) } },
          ],
        },
        { text: 'All done: the form is submitted.' },
      ],
      { tools: [echoTool()] },
    );
    try {
      const { outcome } = await h.runtime.run({ message: 'Submit the contact form' });
      expect(outcome).toMatchObject({ status: 'done', summary: 'All done: the form is submitted.', roundsUsed: 4 });
      const reminder = lastMessage(h, 2);
      expect(reminder).toMatchObject({ role: 'user' });
      expect(String(reminder?.content)).toContain('Fill the form');
      expect(h.events.filter((e) => e.type === 'plan')).toHaveLength(2);
    } finally {
      await h.close();
    }
  });

  it('refuses a plan revision without a reason and accepts it with one', async () => {
    const h = await harness([
      { toolCalls: [{ name: 'update_plan', arguments: { steps: [{ title: 'A', status: 'active' }] } }] },
      { toolCalls: [{ name: 'update_plan', arguments: { steps: [{ title: 'B', status: 'active' }] } }] },
      {
        toolCalls: [{ name: 'update_plan', arguments: { steps: [{ title: 'B', status: 'done' }], reason: 'A was unnecessary' } }],
      },
      { toolCalls: [{ name: 'report_done', arguments: { summary: 'ok' } }] },
    ]);
    try {
      const { checkpoint } = await h.runtime.run({ message: 'do the task' });
      expect(toolResults(h, 2).at(-1)).toContain('refused');
      expect(checkpoint.plan).toEqual([{ title: 'B', status: 'done' }]);
      expect(h.events.filter((e) => e.type === 'plan').map((e) => (e.type === 'plan' ? e.reason : ''))).toEqual([
        undefined,
        'A was unnecessary',
      ]);
    } finally {
      await h.close();
    }
  });

  it('runs read calls of one batch in parallel and other calls one after another, in order', async () => {
    const log: string[] = [];
    let release: () => void = () => undefined;
    const bothStarted = new Promise<void>((r) => (release = r));
    let started = 0;
    const latch = defineTool({
      name: 'read_page',
      kind: 'read',
      description: 'test',
      schema: z.object({ id: z.string() }),
      // Each read waits for the other to have started: this only finishes if they run together.
      execute: async ({ id }) => {
        if (++started === 2) release();
        await Promise.race([
          bothStarted,
          new Promise((_, reject) => setTimeout(() => reject(new Error('reads ran one at a time')), 2_000)),
        ]);
        return { content: `page ${id}` };
      },
    });
    const h = await harness(
      [
        {
          toolCalls: [
            { name: 'read_page', arguments: { id: '1' } },
            { name: 'read_page', arguments: { id: '2' } },
            { name: 'run_step', arguments: { key: 'a' } },
            { name: 'run_step', arguments: { key: 'b' } },
          ],
        },
        { toolCalls: [{ name: 'report_done', arguments: { summary: 'ok' } }] },
      ],
      { tools: [latch, echoTool(log, 'command', 30)] },
    );
    try {
      await h.runtime.run({ message: 'read both pages, then run both steps' });
      expect(toolResults(h, 1)).toEqual(['page 1', 'page 2', 'value of a', 'value of b']);
      expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
    } finally {
      await h.close();
    }
  });

  it('turns an unknown tool or invalid arguments into an error result the model can read', async () => {
    const h = await harness(
      [
        {
          toolCalls: [
            { name: 'teleport', arguments: {} },
            { name: 'lookup', arguments: '{"key": ' },
            { name: 'lookup', arguments: { key: 42 } },
          ],
        },
        { toolCalls: [{ name: 'report_done', arguments: { summary: 'ok' } }] },
      ],
      { tools: [echoTool()] },
    );
    try {
      await h.runtime.run({ message: 'try things' });
      const [unknown, badJson, badType] = toolResults(h, 1);
      expect(unknown).toContain("unknown tool 'teleport'");
      expect(badJson).toContain('not valid JSON');
      expect(badType).toContain('invalid arguments for lookup: key');
    } finally {
      await h.close();
    }
  });
});
