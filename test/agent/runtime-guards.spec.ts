import { describe, expect, it } from '@jest/globals';
import { defineTool, IDENTICAL_REMINDER } from '@lazyboy/agent';
import type { Turn } from '@lazyboy/model';
import { z } from 'zod';
import { echoTool, harness, lastMessage } from './harness.js';

const same: Turn = { toolCalls: [{ name: 'lookup', arguments: { key: 'status' } }] };
const done: Turn = { toolCalls: [{ name: 'report_done', arguments: { summary: 'ok' } }] };

describe('runtime: guards and budgets', () => {
  it('reminds after two identical rounds and stops as blocked after three', async () => {
    const h = await harness([same, same, same, done], { tools: [echoTool()] });
    try {
      const { outcome } = await h.runtime.run({ message: 'check the status' });
      expect(outcome).toMatchObject({ status: 'blocked', code: 'identical_rounds', roundsUsed: 3 });
      expect(lastMessage(h, 2)).toEqual({ role: 'user', content: IDENTICAL_REMINDER });
      expect(h.server.requests).toHaveLength(3);
    } finally {
      await h.close();
    }
  });

  it('does not count controlled waits as identical rounds', async () => {
    const wait = defineTool({
      name: 'wait',
      kind: 'read',
      description: 'wait for a condition, with its own deadline',
      schema: z.object({ seconds: z.number() }),
      execute: async () => ({ content: 'still loading', controlledWait: true }),
    });
    const waitTurn: Turn = { toolCalls: [{ name: 'wait', arguments: { seconds: 1 } }] };
    const h = await harness([waitTurn, waitTurn, waitTurn, waitTurn, done], { tools: [wait] });
    try {
      const { outcome } = await h.runtime.run({ message: 'wait for the upload' });
      expect(outcome).toMatchObject({ status: 'done', roundsUsed: 5 });
    } finally {
      await h.close();
    }
  });

  it('stops after three rounds of only commentary, plan edits or invalid calls', async () => {
    const h = await harness([
      { toolCalls: [{ name: 'send_message', arguments: { text: 'Starting now.' } }] },
      { toolCalls: [{ name: 'update_plan', arguments: { steps: [{ title: 'Do it', status: 'active' }] } }] },
      { toolCalls: [{ name: 'no_such_tool', arguments: {} }] },
      done,
    ]);
    try {
      const { outcome } = await h.runtime.run({ message: 'do the thing' });
      expect(outcome).toMatchObject({ status: 'blocked', code: 'no_progress', roundsUsed: 3 });
    } finally {
      await h.close();
    }
  });

  it('retries an empty model response up to three times', async () => {
    const recovered = await harness([{ empty: true }, { empty: true }, { empty: true }, { text: 'Here you go.' }]);
    const gaveUp = await harness([{ empty: true }, { empty: true }, { empty: true }, { empty: true }, { text: 'too late' }]);
    try {
      expect((await recovered.runtime.run({ message: 'summarise this' })).outcome).toMatchObject({
        status: 'done',
        summary: 'Here you go.',
      });
      expect(recovered.server.requests).toHaveLength(4);
      expect((await gaveUp.runtime.run({ message: 'summarise this' })).outcome).toMatchObject({
        status: 'blocked',
        code: 'empty_responses',
      });
      expect(gaveUp.server.requests).toHaveLength(4);
    } finally {
      await recovered.close();
      await gaveUp.close();
    }
  });

  it('posts a progress beat after every chunk without an extra model call, and stops at the total budget', async () => {
    let n = 0;
    const h = await harness(
      () =>
        ++n === 3
          ? {
              toolCalls: [
                { name: 'report_progress', arguments: { text: 'three pages read' } },
                { name: 'lookup', arguments: { key: `p${n}` } },
              ],
            }
          : { toolCalls: [{ name: 'lookup', arguments: { key: `p${n}` } }] },
      { tools: [echoTool()], limits: { roundsPerChunk: 2, roundsTotal: 5 } },
    );
    try {
      const { outcome } = await h.runtime.run({ message: 'read every page' });
      expect(outcome).toMatchObject({ status: 'blocked', code: 'total_budget', roundsUsed: 5 });
      expect(outcome.status === 'blocked' && outcome.reason).toContain('Progress so far: three pages read');
      expect(h.server.requests).toHaveLength(5);
      expect(h.events.filter((e) => e.type === 'progress')).toEqual([
        { type: 'progress', chunk: 1, roundsUsed: 2, roundsTotal: 5, summary: '' },
        { type: 'progress', chunk: 2, roundsUsed: 4, roundsTotal: 5, summary: 'three pages read' },
      ]);
    } finally {
      await h.close();
    }
  });

  it('gives every new user turn its own budget, while a parked turn keeps counting', async () => {
    const lookups = (n: number): Turn[] =>
      Array.from({ length: n }, (_, i) => ({ toolCalls: [{ name: 'lookup', arguments: { key: `k${i}` } }] }));
    const h = await harness(
      [
        ...lookups(2),
        { toolCalls: [{ name: 'request_user_input', arguments: { question: 'Which one?' } }] },
        ...lookups(1),
        { text: 'First turn finished.' },
        ...lookups(3),
        { text: 'Second turn finished.' },
      ],
      { tools: [echoTool()], limits: { roundsPerChunk: 10, roundsTotal: 5 } },
    );
    try {
      const parked = await h.runtime.run({ message: 'first task' });
      expect(parked.outcome).toMatchObject({ status: 'waiting_input', roundsUsed: 3 });
      const first = await h.runtime.run({ resume: parked.checkpoint, message: 'the blue one' });
      expect(first.outcome).toMatchObject({ status: 'done', roundsUsed: 5 });
      const second = await h.runtime.run({ resume: first.checkpoint, message: 'second task' });
      expect(second.outcome).toMatchObject({ status: 'done', summary: 'Second turn finished.', roundsUsed: 4 });
    } finally {
      await h.close();
    }
  });

  it('ends as blocked with a clear reason when the model keeps failing', async () => {
    const h = await harness([{ httpStatus: 500 }, { httpStatus: 500 }, { httpStatus: 500 }]);
    try {
      const { outcome } = await h.runtime.run({ message: 'anything' });
      expect(outcome).toMatchObject({ status: 'blocked', code: 'model_error' });
      expect(outcome.status === 'blocked' && outcome.reason).toMatch(/^model error: /);
    } finally {
      await h.close();
    }
  });
});
