import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunView } from '@lazyboy/contracts';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { lastPersonText, signUp } from '../support/index.js';
import { WebHarness } from './web-harness.js';

// On a phone, in the default language: the agent's run in one chat waits for an answer, so a message sent
// in another chat queues behind it. The chat says which chat holds the agent and offers to dismiss that
// run; once dismissed, the queued message is answered.

function script(request: ReceivedRequest): Turn {
  const asked = lastPersonText(request);
  if (asked === 'order a pizza') return { toolCalls: [{ name: 'request_user_input', arguments: { question: 'Which size?' } }] };
  return { text: `Echo: ${asked}` };
}

describe('a parked run blocking the agent, in the browser', () => {
  const harness = new WebHarness();

  beforeAll(async () => {
    await harness.start(script);
  }, 120_000);

  afterAll(async () => {
    await harness.stop();
  }, 120_000);

  it('shows the queued message waiting for the other chat, and dismissing that run lets it go ahead', async () => {
    const service = harness.service;
    const user = await signUp(service.app.url);
    const agent = await service.call<{ id: string }>(user, 'POST', `/api/workspaces/${user.workspaceId}/agents`, { name: 'Ada' });
    const pizza = await service.call<{ id: string }>(user, 'POST', `/api/agents/${agent.id}/chats`, { title: '訂披薩' });
    const asked = await service.send(user, pizza.id, 'order a pizza');
    await service.runUntil(user, asked.run.id, (run) => run.status === 'waiting_input');
    const weekend = await service.call<{ id: string }>(user, 'POST', `/api/agents/${agent.id}/chats`, { title: '週末計畫' });

    const { context, page } = await harness.newPage({ cookie: user.cookie, viewport: { width: 390, height: 844 } });
    try {
      await page.goto(`/agents/${agent.id}?chat=${weekend.id}`);
      await page.getByTestId('composer').fill('hello');
      await page.getByTestId('composer').press('Enter');

      const blocking = page.getByTestId('blocking-run');
      await blocking.waitFor({ timeout: 15_000 });
      expect(await blocking.getAttribute('data-run-id')).toBe(asked.run.id);
      expect(await blocking.innerText()).toContain('排隊中：Ada 正在「訂披薩」等人回覆');
      const dismiss = page.getByTestId('dismiss-blocking-run');
      expect(await dismiss.innerText()).toBe('結束那個任務');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

      await dismiss.click();
      await page
        .locator('[data-testid="message"][data-role="assistant"]')
        .filter({ hasText: 'Echo: hello' })
        .waitFor({ timeout: 15_000 });
      await expect(blocking.count()).resolves.toBe(0);
      expect(await service.call<RunView>(user, 'GET', `/api/runs/${asked.run.id}`)).toMatchObject({ status: 'cancelled' });
    } finally {
      await context.close();
    }
  }, 90_000);
});
