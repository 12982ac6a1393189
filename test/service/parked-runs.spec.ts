import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageView, RunView } from '@lazyboy/contracts';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { lastPersonText } from '../support/index.js';
import { FINAL, ServiceHarness } from './service-harness.js';

// A run parked on a question holds its agent for every chat. Past LAZYBOY_PARKED_RUN_HOURS (two seconds
// here) it ends as blocked with `waited_too_long`, its chat says so, and the run queued behind it in
// another chat goes ahead.

function script(request: ReceivedRequest): Turn {
  const asked = lastPersonText(request);
  if (asked === 'order a pizza') return { toolCalls: [{ name: 'request_user_input', arguments: { question: 'Which size?' } }] };
  return { text: `Echo: ${asked}` };
}

describe('a parked run that waited too long', () => {
  const harness = new ServiceHarness();

  beforeAll(async () => {
    await harness.start(script, { LAZYBOY_PARKED_RUN_HOURS: String(2 / 3_600) });
  }, 60_000);

  afterAll(async () => {
    await harness.stop();
  }, 60_000);

  it('ends as blocked with a notice in its chat, and the agent answers its other chats', async () => {
    const { user, agentId, chatId } = await harness.userWithAgent();
    const other = await harness.call<{ id: string }>(user, 'POST', `/api/agents/${agentId}/chats`, {});

    const asked = await harness.send(user, chatId, 'order a pizza');
    await harness.runUntil(user, asked.run.id, (run) => run.status === 'waiting_input');
    const behind = await harness.send(user, other.id, 'hello');
    expect(behind.queuedBehindActive).toBe(true);

    const expired = await harness.runUntil(user, asked.run.id, FINAL);
    expect(expired).toMatchObject({ status: 'blocked', errorCode: 'waited_too_long' });
    const answered = await harness.runUntil(user, behind.run.id, FINAL);
    expect(answered).toMatchObject({ status: 'completed', resultText: 'Echo: hello' });

    const page = await harness.call<{ items: MessageView[] }>(user, 'GET', `/api/chats/${chatId}/messages`);
    const written = page.items.filter((m) => m.runId === asked.run.id && m.role === 'assistant');
    expect(written.map((m) => m.notice)).toEqual([null, { code: 'waited_too_long', providerMessage: null }]);
    expect(written[0]!.text).toBe('Which size?');

    // A late answer is a new message to a new run, not the resumption of the ended one.
    const late = await harness.send(user, chatId, 'large');
    expect(late.run.id).not.toBe(asked.run.id);
    const lateRun = await harness.runUntil(user, late.run.id, FINAL);
    expect(lateRun).toMatchObject({ status: 'completed', resultText: 'Echo: large' });
    const still = await harness.call<RunView>(user, 'GET', `/api/runs/${asked.run.id}`);
    expect(still).toMatchObject({ status: 'blocked', errorCode: 'waited_too_long' });
  }, 90_000);
});
