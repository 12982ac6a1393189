import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { signUp, lastPersonText } from '../support/index.js';
import { WebHarness } from './web-harness.js';
import { signInThroughLoginPage } from '../support/web-walkthrough.js';

// A person uses LazyBoy in a real Chromium: signs in, creates an agent, sends it a task and watches the
// agent's status and answer arrive over the websocket; the whole stack runs behind the web server.

/** The scripted model: slow enough to watch, like a real one. */
function answer(request: ReceivedRequest): Turn {
  const asked = lastPersonText(request);
  const acted = request.messages.some((m) => m.role === 'tool');
  if (asked.startsWith('What is the weather')) {
    if (!acted)
      return {
        delayMs: 1_500,
        toolCalls: [
          { name: 'send_message', arguments: { text: 'Looking at the forecast.' } },
          { name: 'update_plan', arguments: { steps: [{ title: 'Read the forecast', status: 'active' }] } },
        ],
      };
    return { delayMs: 1_500, toolCalls: [{ name: 'report_done', arguments: { summary: 'It will be sunny all day.' } }] };
  }
  if (asked.startsWith('Post the announcement')) {
    if (!acted)
      return {
        toolCalls: [
          {
            name: 'request_user_confirm',
            arguments: {
              action: 'Post the announcement to the team channel',
              draft: 'Hello everyone, the new version ships Tuesday.',
            },
          },
        ],
      };
    return { toolCalls: [{ name: 'report_done', arguments: { summary: 'Posted the announcement.' } }] };
  }
  return { text: `I cannot do "${asked}".` };
}

describe('the web app in a real browser', () => {
  const harness = new WebHarness();

  beforeAll(async () => {
    await harness.start(answer);
  }, 120_000);

  afterAll(async () => {
    await harness.stop();
  }, 120_000);

  it('signs in, creates an agent, and shows its status and answer as they happen', async () => {
    const user = await signUp(harness.service.app.url);
    const { context, page } = await harness.newPage();
    try {
      await signInThroughLoginPage(page, user.email, user.password);

      await page.getByTestId('new-agent-button').click();
      await page.getByTestId('new-agent-name').fill('Ada');
      await page.getByTestId('new-agent-submit').click();
      const agent = page.getByTestId('agent-item').filter({ hasText: 'Ada' });
      await agent.waitFor();
      await agent.click();
      await page.waitForURL('**/agents/**');

      const composer = page.getByTestId('composer');
      await composer.fill('What is the weather');
      await composer.press('Shift+Enter');
      await composer.pressSequentially('tomorrow?');
      expect(await composer.inputValue()).toBe('What is the weather\ntomorrow?');
      // The API's answer to the post is held back until the page has shown the message.
      let letThrough: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (letThrough = resolve));
      let posted: Promise<void> = Promise.resolve();
      await page.route('**/api/chats/*/messages', async (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        posted = held.then(() => route.continue());
        await posted;
      });
      await composer.press('Enter');

      // Optimistic: the message is there, marked as sending, before the API answers; the composer is empty again.
      await page.locator('[data-testid="message"][data-state="sending"]').filter({ hasText: 'tomorrow?' }).waitFor();
      expect(await composer.inputValue()).toBe('');
      letThrough();
      await posted;
      await page.unroute('**/api/chats/*/messages');
      // The agent works: status and progress arrive over the websocket, then the answer.
      await page.locator('[data-testid="agent-status"][data-status="thinking"]').first().waitFor({ timeout: 10_000 });
      await page.getByTestId('busy-line').waitFor({ timeout: 10_000 });
      await page.getByTestId('message').filter({ hasText: 'Looking at the forecast.' }).waitFor({ timeout: 10_000 });
      await page.getByTestId('plan-step').filter({ hasText: 'Read the forecast' }).waitFor({ timeout: 10_000 });
      const final = page
        .locator('[data-testid="message"][data-role="assistant"]')
        .filter({ hasText: 'It will be sunny all day.' });
      await final.waitFor({ timeout: 15_000 });
      await page.locator('[data-testid="agent-status"][data-status="idle"]').first().waitFor({ timeout: 10_000 });
      await expect(page.getByTestId('busy-line').count()).resolves.toBe(0);

      // The user's message was stored once, however the page sent it.
      const agents = await fetch(new URL(`/api/workspaces/${user.workspaceId}/agents`, harness.service.app.url), {
        headers: { cookie: user.cookie },
      }).then((r) => r.json() as Promise<{ id: string }[]>);
      const chats = await fetch(new URL(`/api/agents/${agents[0]!.id}/chats`, harness.service.app.url), {
        headers: { cookie: user.cookie },
      }).then((r) => r.json() as Promise<{ id: string }[]>);
      const messages = await fetch(new URL(`/api/chats/${chats[0]!.id}/messages`, harness.service.app.url), {
        headers: { cookie: user.cookie },
      }).then((r) => r.json() as Promise<{ items: { role: string; text: string }[] }>);
      expect(messages.items.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['What is the weather\ntomorrow?']);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('answers a confirmation inline, and keeps chats: renamed, cleared, a new one', async () => {
    const user = await signUp(harness.service.app.url);
    const agent = await harness.service.call<{ id: string }>(user, 'POST', `/api/workspaces/${user.workspaceId}/agents`, {
      name: 'Bea',
    });
    const { context, page } = await harness.newPage({ cookie: user.cookie, locale: 'en' });
    try {
      await page.goto(`/agents/${agent.id}`);
      await page.getByTestId('composer').fill('Post the announcement');
      await page.getByTestId('composer').press('Enter');
      const question = page.locator('[data-testid="pending-question"][data-kind="confirm"]');
      await question.waitFor({ timeout: 15_000 });
      expect(await question.innerText()).toContain('Hello everyone, the new version ships Tuesday.');
      await page.getByTestId('question-approve').click();
      await page
        .locator('[data-testid="message"][data-role="assistant"]')
        .filter({ hasText: 'Posted the announcement.' })
        .waitFor({ timeout: 15_000 });
      expect(await page.getByTestId('pending-question').count()).toBe(0);

      await page.getByTestId('chat-menu').locator('summary').click();
      await page.getByTestId('chat-rename').click();
      await page.getByTestId('prompt-input').fill('Announcements');
      await page.getByTestId('prompt-ok').click();
      await page
        .getByTestId('chat-select')
        .locator('option:checked', { hasText: 'Announcements' })
        .waitFor({ state: 'attached' });

      await page.getByTestId('chat-menu').locator('summary').click();
      await page.getByTestId('chat-clear').click();
      await page.getByTestId('confirm-ok').click();
      await page.getByTestId('chat-empty').waitFor();
      expect(await page.getByTestId('message').count()).toBe(0);
      const chats = await harness.service.call<{ id: string; title: string }[]>(user, 'GET', `/api/agents/${agent.id}/chats`);
      expect(chats.map((c) => c.title)).toEqual(['Announcements']);
      const left = await harness.service.call<{ items: unknown[] }>(user, 'GET', `/api/chats/${chats[0]!.id}/messages`);
      expect(left.items).toEqual([]);

      await page.getByTestId('chat-new').click();
      await page.getByTestId('composer').fill('What is the weather');
      await page.getByTestId('composer').press('Enter');
      await page
        .locator('[data-testid="message"][data-role="assistant"]')
        .filter({ hasText: 'It will be sunny all day.' })
        .waitFor({
          timeout: 20_000,
        });
      const after = await harness.service.call<{ id: string; title: string }[]>(user, 'GET', `/api/agents/${agent.id}/chats`);
      expect(after).toHaveLength(2);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('works at phone width: the agents sit in a drawer, and a chat goes back and forth', async () => {
    const user = await signUp(harness.service.app.url);
    await harness.service.call(user, 'POST', `/api/workspaces/${user.workspaceId}/agents`, { name: 'Pocket' });
    const { context, page } = await harness.newPage({ cookie: user.cookie, viewport: { width: 390, height: 844 } });
    try {
      await page.goto('/');
      // The sidebar is out of the way until asked for; nothing is wider than the phone.
      const agent = page.getByTestId('agent-item').filter({ hasText: 'Pocket' });
      expect(await agent.isVisible()).toBe(false);
      await page.getByTestId('drawer-toggle').click();
      await agent.click();
      await page.waitForURL('**/agents/**');
      await page.getByTestId('composer').fill('Say hi');
      await page.getByTestId('composer').press('Enter');
      await page
        .locator('[data-testid="message"][data-role="assistant"]')
        .filter({ hasText: 'I cannot do "Say hi".' })
        .waitFor({ timeout: 15_000 });
      // The drawer closed once it had done its job, and the chat fits the screen.
      expect(await agent.isVisible()).toBe(false);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await context.close();
    }
  }, 60_000);

  it("keeps a member out of the admin dashboard and out of another workspace's agent", async () => {
    const owner = await signUp(harness.service.app.url);
    const agent = await fetch(new URL(`/api/workspaces/${owner.workspaceId}/agents`, harness.service.app.url), {
      method: 'POST',
      headers: { cookie: owner.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Private agent' }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const stranger = await signUp(harness.service.app.url);
    const { context, page } = await harness.newPage({ locale: 'en' });
    try {
      await page.goto('/login');
      await page.getByTestId('login-email').fill(stranger.email);
      await page.getByTestId('login-password').fill(stranger.password);
      await page.getByTestId('login-submit').click();
      await page.waitForURL((url) => !url.pathname.startsWith('/login'));

      await page.goto('/admin');
      await page.getByTestId('admin-forbidden').waitFor();
      expect(await page.getByTestId('admin-dashboard').count()).toBe(0);

      await page.goto(`/agents/${agent.id}`);
      await page.getByTestId('agent-missing').waitFor();
      expect(await page.getByText('Private agent').count()).toBe(0);

      // Nor another workspace's live view, even holding a view URL of it.
      await harness.service.call(owner, 'POST', `/api/agents/${agent.id}/computer/boot`);
      const { ticket } = await harness.service.call<{ ticket: string }>(
        owner,
        'POST',
        `/api/agents/${agent.id}/computer/viewer-ticket`,
        {
          mode: 'view',
        },
      );
      const outcome = await page.evaluate(
        (path) =>
          new Promise<string>((resolve) => {
            const socket = new WebSocket(new URL(path, location.href.replace(/^http/, 'ws')));
            socket.onopen = () => resolve('open');
            socket.onerror = () => resolve('refused');
          }),
        `/view/${ticket}?c=${'s'.repeat(22)}`,
      );
      expect(outcome).toBe('refused');
    } finally {
      await context.close();
    }
  }, 60_000);
});
