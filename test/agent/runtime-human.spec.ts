import { describe, expect, it } from '@jest/globals';
import type { PendingQuestion } from '@lazyboy/agent';
import { blockingBroker, echoTool, harness, toolResults } from './harness.js';

describe('runtime: human gates', () => {
  it('blocking mode: waits for the answer and continues with it', async () => {
    const asked: PendingQuestion[] = [];
    const h = await harness(
      [
        { toolCalls: [{ name: 'request_user_input', arguments: { question: 'Which account should I use?' } }] },
        { toolCalls: [{ name: 'report_done', arguments: { summary: 'Used the work account.' } }] },
      ],
      { human: blockingBroker({ kind: 'answer', text: 'the work account' }, asked) },
    );
    try {
      const { outcome } = await h.runtime.run({ message: 'Sign me in' });
      expect(outcome.status).toBe('done');
      expect(asked).toMatchObject([{ kind: 'input', prompt: 'Which account should I use?' }]);
      expect(toolResults(h, 1)).toEqual(['The user answered: the work account']);
    } finally {
      await h.close();
    }
  });

  it('blocking mode: a denied confirmation reaches the model and the action is not taken', async () => {
    const posted: string[] = [];
    const h = await harness(
      [
        { toolCalls: [{ name: 'request_user_confirm', arguments: { action: 'Post to Threads', draft: 'Big sale today!' } }] },
        // A well-behaved model stops; the test checks the denial is what it read.
        { toolCalls: [{ name: 'report_blocked', arguments: { reason: 'the user did not approve the post' } }] },
      ],
      { human: blockingBroker({ kind: 'denied' }), tools: [echoTool(posted, 'command')] },
    );
    try {
      const { outcome } = await h.runtime.run({ message: 'Post the sale announcement' });
      expect(outcome).toMatchObject({ status: 'blocked', code: 'reported' });
      expect(toolResults(h, 1)[0]).toMatch(/^denied: the user did not approve/);
      expect(posted).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('blocking mode: an aborted or timed-out hand-off fails closed as blocked', async () => {
    for (const answer of [{ kind: 'aborted' as const }, { kind: 'timeout' as const }]) {
      const h = await harness([{ toolCalls: [{ name: 'browser_handoff', arguments: { reason: 'Log in to the shop' } }] }], {
        human: blockingBroker(answer),
      });
      try {
        const { outcome } = await h.runtime.run({ message: 'Check my orders' });
        expect(outcome).toMatchObject({ status: 'blocked', code: 'human_declined' });
        expect(h.server.requests).toHaveLength(1);
      } finally {
        await h.close();
      }
    }
  });

  it('a human gate must be alone in its batch: nothing in the batch runs', async () => {
    const log: string[] = [];
    const h = await harness(
      [
        {
          toolCalls: [
            { name: 'run_step', arguments: { key: 'delete-drafts' } },
            { name: 'request_user_confirm', arguments: { action: 'Delete all drafts' } },
          ],
        },
        { toolCalls: [{ name: 'report_blocked', arguments: { reason: 'waiting' } }] },
      ],
      { human: blockingBroker({ kind: 'approved' }), tools: [echoTool(log, 'command')] },
    );
    try {
      await h.runtime.run({ message: 'Clean up' });
      expect(log).toEqual([]);
      expect(toolResults(h, 1)).toEqual([
        expect.stringContaining('request_user_confirm must be called alone'),
        expect.stringContaining('request_user_confirm must be called alone'),
      ]);
    } finally {
      await h.close();
    }
  });

  it('turn-ending mode: parks in waiting_input, and the next user message is the answer', async () => {
    const h = await harness([
      { toolCalls: [{ name: 'request_user_input', arguments: { question: 'What is the order number?' } }] },
      { toolCalls: [{ name: 'report_done', arguments: { summary: 'Order A-17 is on its way.' } }] },
    ]);
    try {
      const first = await h.runtime.run({ message: 'Where is my parcel?' });
      expect(first.outcome).toMatchObject({
        status: 'waiting_input',
        question: { kind: 'input', prompt: 'What is the order number?' },
      });
      expect(first.checkpoint.pendingQuestion?.tool).toBe('request_user_input');
      expect(h.events.some((e) => e.type === 'question')).toBe(true);

      const second = await h.runtime.run({ resume: first.checkpoint, message: 'A-17' });
      expect(second.outcome).toMatchObject({ status: 'done', summary: 'Order A-17 is on its way.' });
      expect(toolResults(h, 1)).toEqual(['The user answered: A-17']);
      expect(second.checkpoint.pendingQuestion).toBeNull();
    } finally {
      await h.close();
    }
  });

  it('turn-ending mode: request_takeover parks in waiting_takeover and the release resumes from the screen', async () => {
    const h = await harness([
      { toolCalls: [{ name: 'request_takeover', arguments: { reason: 'The bank asks for a one-time code' } }] },
      { toolCalls: [{ name: 'report_done', arguments: { summary: 'Signed in.' } }] },
    ]);
    try {
      const first = await h.runtime.run({ message: 'Download my statement' });
      expect(first.outcome.status).toBe('waiting_takeover');
      const second = await h.runtime.run({ resume: first.checkpoint, answer: { kind: 'resumed' } });
      expect(second.outcome.status).toBe('done');
      expect(toolResults(h, 1)[0]).toContain('handed back control');
    } finally {
      await h.close();
    }
  });
});
