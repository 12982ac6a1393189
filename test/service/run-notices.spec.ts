import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageView, RunView } from '@lazyboy/contracts';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { lastPersonText } from '../support/index.js';
import { FINAL, ServiceHarness } from './service-harness.js';

// The message a run ends with on an error or a guard carries the run's stable code (and the provider's own
// words for a model failure): clients show that in their person's language, never the service's English.

function script(request: ReceivedRequest): Turn {
  const asked = lastPersonText(request);
  if (asked === 'refuse the key')
    return {
      httpStatus: 401,
      errorBody: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } },
    };
  if (asked === 'say nothing') return { empty: true };
  if (asked === 'give up') return { toolCalls: [{ name: 'report_blocked', arguments: { reason: '我找不到那個檔案。' } }] };
  return { text: `Echo: ${asked}` };
}

describe('the notice a run ends with', () => {
  const harness = new ServiceHarness();

  beforeAll(async () => {
    await harness.start(script);
  }, 60_000);

  afterAll(async () => {
    await harness.stop();
  }, 60_000);

  /** The run's end and the messages it wrote. */
  async function ask(text: string): Promise<{ run: RunView; written: MessageView[] }> {
    const { user, chatId } = await harness.userWithAgent();
    const posted = await harness.send(user, chatId, text);
    const run = await harness.runUntil(user, posted.run.id, FINAL);
    const page = await harness.call<{ items: MessageView[] }>(user, 'GET', `/api/chats/${chatId}/messages`);
    return { run, written: page.items.filter((m) => m.runId === run.id && m.role === 'assistant') };
  }

  it("marks a model's failure with its code and the provider's own words", async () => {
    const { run, written } = await ask('refuse the key');
    expect(run).toMatchObject({ status: 'blocked', errorCode: 'model_key_refused' });
    expect(written.map((m) => m.notice)).toEqual([{ code: 'model_key_refused', providerMessage: 'Incorrect API key provided.' }]);
  }, 60_000);

  it("marks a guard's stop with its code alone", async () => {
    const { run, written } = await ask('say nothing');
    expect(run).toMatchObject({ status: 'blocked', errorCode: 'empty_responses' });
    expect(written.map((m) => m.notice)).toEqual([{ code: 'empty_responses', providerMessage: null }]);
  }, 60_000);

  it("leaves the agent's own words alone: a reported block and an answer carry no notice", async () => {
    const blocked = await ask('give up');
    expect(blocked.run).toMatchObject({ status: 'blocked', errorCode: 'reported' });
    expect(blocked.written.map((m) => [m.text, m.notice])).toEqual([['我找不到那個檔案。', null]]);
    const answered = await ask('hello');
    expect(answered.written.map((m) => [m.text, m.notice])).toEqual([['Echo: hello', null]]);
  }, 60_000);
});
