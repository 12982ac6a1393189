import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AgentView, MemberListView, MeView } from '@lazyboy/contracts';
import { signUp } from '../support/index.js';
import { WebHarness } from './web-harness.js';

// The members page and the agent settings in a real Chromium, at phone width and in both languages:
// roles changed, the last owner refused in the person's language, a member kept to reading, leaving.

describe('members and agent settings in a real browser', () => {
  const harness = new WebHarness();

  beforeAll(async () => {
    await harness.start((request) => ({ text: `Echo: ${request.messages.length}` }));
  }, 120_000);

  afterAll(async () => {
    await harness.stop();
  }, 120_000);

  it('changes a role, and refuses to let the last owner leave or step down, in zh-TW at 390 px', async () => {
    const owner = await signUp(harness.service.app.url, { displayName: '老闆' });
    const colleague = await signUp(harness.service.app.url, { displayName: '小美' });
    await harness.service.call(owner, 'POST', `/api/workspaces/${owner.workspaceId}/members`, {
      email: colleague.email,
      role: 'member',
    });
    const { context, page } = await harness.newPage({ cookie: owner.cookie, viewport: { width: 390, height: 844 } });
    try {
      await page.goto('/');
      await page.getByTestId('drawer-toggle').click();
      await page.getByTestId('members-link').click();
      await page.waitForURL('**/settings/members');
      const row = page.locator(`[data-testid="member-row"][data-user-id="${colleague.userId}"]`);
      await row.getByTestId('member-role').selectOption('admin');
      await page.locator(`[data-testid="member-row"][data-user-id="${colleague.userId}"][data-role="admin"]`).waitFor();
      const members = await harness.service.call<MemberListView>(owner, 'GET', `/api/workspaces/${owner.workspaceId}/members`);
      expect(members.items.find((m) => m.userId === colleague.userId)?.role).toBe('admin');

      // The only owner steps down: the API refuses, the page says why in Chinese and keeps the role shown.
      const self = page.locator(`[data-testid="member-row"][data-user-id="${owner.userId}"]`);
      await self.getByTestId('member-role').selectOption('member');
      await page.getByTestId('error-banner').filter({ hasText: '工作區至少要有一位擁有者' }).waitFor();
      expect(await self.getByTestId('member-role').inputValue()).toBe('owner');

      await page.getByTestId('leave-workspace').click();
      await page.getByTestId('confirm-ok').click();
      const refusal = page.getByTestId('confirm-dialog').getByRole('alert');
      await refusal.waitFor();
      expect(await refusal.innerText()).toContain('工作區至少要有一位擁有者');
      await page.getByTestId('confirm-cancel').click();
      const me = await harness.service.call<MeView>(owner, 'GET', '/api/auth/me');
      expect(me.workspaces.some((w) => w.id === owner.workspaceId && w.role === 'owner')).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await context.close();
    }
  }, 90_000);

  it("keeps a member out of the workspace's settings, shows an agent's model read-only, and lets them leave", async () => {
    const owner = await signUp(harness.service.app.url);
    const member = await signUp(harness.service.app.url);
    await harness.service.call(owner, 'POST', `/api/workspaces/${owner.workspaceId}/members`, { email: member.email });
    const agent = await harness.service.call<AgentView>(owner, 'POST', `/api/workspaces/${owner.workspaceId}/agents`, {
      name: 'Shared agent',
      modelSettings: { provider: 'openai-chat', baseUrl: 'https://models.example.net/v1', model: 'shared-model' },
    });
    const { context, page } = await harness.newPage({ cookie: member.cookie, locale: 'en' });
    try {
      await page.goto('/');
      await page.getByTestId('workspace-select').selectOption(owner.workspaceId);
      await page.getByTestId('agent-item').filter({ hasText: 'Shared agent' }).waitFor();

      // The workspace's settings are not a member's to open: no link, no tab, and the address refuses.
      await page.getByTestId('members-link').waitFor();
      expect(await page.getByTestId('settings-link').count()).toBe(0);
      await page.goto('/settings');
      await page.getByTestId('settings-members-only').waitFor();
      expect(await page.getByTestId('settings-members-only').innerText()).toContain('Only the workspace');
      expect(await page.getByTestId('settings-workspace-name').count()).toBe(0);
      expect(await page.getByTestId('settings-tab-workspace').count()).toBe(0);
      await page.getByTestId('settings-members-only-link').click();
      await page.waitForURL('**/settings/members');

      await page.goto(`/agents/${agent.id}/settings`);
      await page.getByTestId('agent-model-readonly').waitFor();
      // The agent's own model is named, its address (which may be on the owner's LAN) is not.
      const readonly = await page.getByTestId('agent-model-readonly').innerText();
      expect(readonly).toContain('shared-model');
      expect(await page.content()).not.toContain('models.example.net');
      expect(await page.getByTestId('agent-model-save').count()).toBe(0);
      // Members may still shape the agent itself.
      await page.getByTestId('agent-instructions').fill('Answer briefly.');
      await page.getByTestId('agent-profile-save').click();
      await page.getByTestId('settings-saved').waitFor();
      const saved = await harness.service.call<AgentView>(member, 'GET', `/api/agents/${agent.id}`);
      expect(saved.instructions).toBe('Answer briefly.');

      await page.goto('/settings/members');
      expect(await page.getByTestId('member-role').count()).toBe(0);
      expect(await page.getByTestId('member-remove').count()).toBe(0);
      await page.getByTestId('leave-workspace').click();
      await page.getByTestId('confirm-ok').click();
      await page.waitForURL((url) => url.pathname === '/');
      await page.getByTestId('workspace-select').waitFor();
      const options = await page
        .getByTestId('workspace-select')
        .locator('option')
        .evaluateAll((o) => o.map((e) => e.getAttribute('value')));
      expect(options).toEqual([member.workspaceId]);
      const left = await harness.service.call<MemberListView>(owner, 'GET', `/api/workspaces/${owner.workspaceId}/members`);
      expect(left.items.map((m) => m.userId)).toEqual([owner.userId]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it("saves an agent's own model with a write-only key, and goes back to the workspace's model", async () => {
    const owner = await signUp(harness.service.app.url);
    const agent = await harness.service.call<AgentView>(owner, 'POST', `/api/workspaces/${owner.workspaceId}/agents`, {
      name: 'Kai',
    });
    const key = 'sk-agent-secret-7f3a9c';
    // Saving contacts no server: any public endpoint will do (loopback is the instance admin's call).
    const endpoint = 'https://models.example.test/v1';
    const { context, page } = await harness.newPage({ cookie: owner.cookie, locale: 'en' });
    try {
      await page.goto(`/agents/${agent.id}`);
      await page.getByTestId('agent-menu').locator('summary').click();
      await page.getByTestId('agent-settings-link').click();
      await page.waitForURL(`**/agents/${agent.id}/settings`);

      await page.getByTestId('agent-name').fill('Kai the second');
      await page.getByTestId('agent-avatar-shuffle').click();
      await page.getByTestId('agent-computer-mode').selectOption('private');
      await page.getByTestId('agent-profile-save').click();
      await page.getByTestId('agent-settings').getByTestId('settings-saved').waitFor();
      await page.getByTestId('agent-item').filter({ hasText: 'Kai the second' }).waitFor();

      await page.getByTestId('agent-model-own').check();
      await page.getByTestId('agent-model-provider').selectOption('openai-chat');
      await page.getByTestId('agent-model-base-url').fill(endpoint);
      await page.getByTestId('agent-model-name').fill('big-model');
      await page.getByTestId('agent-model-key-input').fill(key);
      await page.getByTestId('agent-model-save').click();
      await page.getByTestId('agent-model-key-masked').waitFor();
      let saved = await harness.service.call<AgentView>(owner, 'GET', `/api/agents/${agent.id}`);
      expect(saved).toMatchObject({
        name: 'Kai the second',
        computerMode: 'private',
        hasModelApiKey: true,
        modelSettings: { provider: 'openai-chat', baseUrl: endpoint, model: 'big-model' },
      });
      expect(saved.avatarSeed).not.toBe(agent.avatarSeed);
      // Written once, never shown again: not in the page, not after a reload.
      await page.reload();
      await page.getByTestId('agent-model-key-masked').waitFor();
      expect(await page.content()).not.toContain(key);

      await page.getByTestId('agent-model-workspace').check();
      await page.getByTestId('agent-model-save').click();
      await page.getByTestId('agent-model').getByTestId('settings-saved').waitFor();
      saved = await harness.service.call<AgentView>(owner, 'GET', `/api/agents/${agent.id}`);
      expect(saved).toMatchObject({ hasModelApiKey: false, modelSettings: {} });
    } finally {
      await context.close();
    }
  }, 90_000);
});
