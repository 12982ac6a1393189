import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { signUp, lastPersonText } from '../support/index.js';
import { WebHarness } from './web-harness.js';

// The conversation's controls in a real Chromium: stopping a working agent, sending while the network is
// down and retrying, and switching workspaces.

function answer(request: ReceivedRequest): Turn {
  const asked = lastPersonText(request);
  // A long task: the model keeps thinking, slowly, so that it can be stopped.
  if (asked.startsWith('Think for a long time'))
    return { delayMs: 2_000, toolCalls: [{ name: 'update_plan', arguments: { steps: [{ title: 'Think', status: 'active' }] } }] };
  return { text: `You said: ${asked}` };
}

describe('the conversation controls in a real browser', () => {
  const harness = new WebHarness();

  beforeAll(async () => {
    await harness.start(answer);
  }, 120_000);

  afterAll(async () => {
    await harness.stop();
  }, 120_000);

  it('stops a working agent with the stop button', async () => {
    const user = await signUp(harness.service.app.url);
    const agent = await harness.service.call<{ id: string }>(user, 'POST', `/api/workspaces/${user.workspaceId}/agents`, {
      name: 'Dee',
    });
    const { context, page } = await harness.newPage({ cookie: user.cookie, locale: 'en' });
    try {
      await page.goto(`/agents/${agent.id}`);
      await page.getByTestId('composer').fill('Think for a long time');
      await page.getByTestId('composer').press('Enter');
      await page.getByTestId('busy-line').waitFor({ timeout: 15_000 });
      await page.getByTestId('stop-button').click();
      await page.getByTestId('busy-line').waitFor({ state: 'detached', timeout: 20_000 });
      await page.locator('[data-testid="agent-status"][data-status="idle"]').first().waitFor({ timeout: 10_000 });
      const runs = await harness.service.call<{ items: unknown[] }>(
        user,
        'GET',
        `/api/workspaces/${user.workspaceId}/runs/active`,
      );
      expect(runs.items).toEqual([]);
      const [chat] = await harness.service.call<{ id: string }[]>(user, 'GET', `/api/agents/${agent.id}/chats`);
      const messages = await harness.service.call<{ items: { runId: string | null }[] }>(
        user,
        'GET',
        `/api/chats/${chat!.id}/messages`,
      );
      const run = await harness.service.call<{ status: string }>(user, 'GET', `/api/runs/${messages.items[0]!.runId}`);
      expect(run.status).toBe('cancelled');
    } finally {
      await context.close();
    }
  }, 90_000);

  it('keeps a message sent while offline, and a retry stores it exactly once', async () => {
    const user = await signUp(harness.service.app.url);
    const agent = await harness.service.call<{ id: string }>(user, 'POST', `/api/workspaces/${user.workspaceId}/agents`, {
      name: 'Eve',
    });
    const chat = await harness.service.call<{ id: string }>(user, 'POST', `/api/agents/${agent.id}/chats`, { title: 'Offline' });
    const { context, page } = await harness.newPage({ cookie: user.cookie, locale: 'en' });
    try {
      await page.goto(`/agents/${agent.id}?chat=${chat.id}`);
      await page.getByTestId('composer').waitFor();
      await context.setOffline(true);
      await page.getByTestId('composer').fill('Hello while offline');
      await page.getByTestId('composer').press('Enter');
      await page
        .locator('[data-testid="message"][data-state="failed"]')
        .filter({ hasText: 'Hello while offline' })
        .waitFor({ timeout: 15_000 });
      await context.setOffline(false);
      await page.getByTestId('message-retry').click();
      await page
        .locator('[data-testid="message"][data-role="assistant"]')
        .filter({ hasText: 'You said: Hello while offline' })
        .waitFor({ timeout: 20_000 });
      await page.getByTestId('message-retry').waitFor({ state: 'detached' });
      const messages = await harness.service.call<{ items: { role: string; text: string }[] }>(
        user,
        'GET',
        `/api/chats/${chat.id}/messages`,
      );
      expect(messages.items.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['Hello while offline']);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('switches between the workspaces a person belongs to', async () => {
    const user = await signUp(harness.service.app.url);
    await harness.service.call(user, 'POST', `/api/workspaces/${user.workspaceId}/agents`, { name: 'Home agent' });
    const second = await harness.service.call<{ id: string }>(user, 'POST', '/api/workspaces', { name: 'Second team' });
    await harness.service.call(user, 'POST', `/api/workspaces/${second.id}/agents`, { name: 'Team agent' });
    const { context, page } = await harness.newPage({ cookie: user.cookie, locale: 'en' });
    try {
      await page.goto('/');
      const agents = page.getByTestId('agent-item');
      await page.getByTestId('workspace-select').selectOption(user.workspaceId);
      await agents.filter({ hasText: 'Home agent' }).waitFor();
      expect(await agents.filter({ hasText: 'Team agent' }).count()).toBe(0);
      await page.getByTestId('workspace-select').selectOption(second.id);
      await agents.filter({ hasText: 'Team agent' }).waitFor();
      expect(await agents.filter({ hasText: 'Home agent' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 60_000);
});
