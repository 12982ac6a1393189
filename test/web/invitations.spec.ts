import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { AgentView, CreatedInvitationView, InvitationListView, MeView } from '@lazyboy/contracts';
import { logInFirstAdmin, signUp, type TestUser } from '../support/index.js';
import { WebHarness } from './web-harness.js';

// Joining a team from the browser under the product's default sign-up policy (`invite`): the first admin
// invites a colleague from the members page, who signs up through the link in a browser of their own,
// finds the shared agent and the Team computer, and cannot open the workspace's settings. A used, revoked or
// expired link, and a sign-up without one or under the `closed` policy, are refused in the person's language.

const ADMIN_EMAIL = 'admin@lazyboy.test';
const APP_TOKEN = randomBytes(24).toString('hex');

describe('invitations in a real browser', () => {
  const harness = new WebHarness();
  let admin: TestUser;

  beforeAll(async () => {
    await harness.start(() => ({ text: 'Hello from the team agent.' }), {
      LAZYBOY_SIGNUP: 'invite',
      LAZYBOY_APP_TOKEN: APP_TOKEN,
      LAZYBOY_ADMIN_EMAIL: ADMIN_EMAIL,
    });
    const cookie = await logInFirstAdmin(harness.service.app.url, ADMIN_EMAIL, APP_TOKEN);
    const me = await harness.service.call<MeView>({ cookie } as TestUser, 'GET', '/api/auth/me');
    admin = {
      email: ADMIN_EMAIL,
      password: APP_TOKEN,
      displayName: me.user.displayName,
      cookie,
      userId: me.user.id,
      workspaceId: me.workspaces[0]!.id,
    };
  }, 120_000);

  afterAll(async () => {
    await harness.stop();
  }, 120_000);

  /** The admin invites `email` from the members page and copies the link the page shows. */
  async function inviteFromPage(email: string): Promise<string> {
    const { context, page } = await harness.newPage({ cookie: admin.cookie, locale: 'en' });
    try {
      await page.goto('/settings/members');
      await page.getByTestId('invite-email').fill(email);
      await page.getByTestId('invite-role').selectOption('member');
      await page.getByTestId('invite-submit').click();
      const link = await page.getByTestId('invite-link-url').inputValue();
      // No mail transport here: the link is to copy, and the page does not pretend it was sent.
      expect(await page.getByTestId('invite-link').getAttribute('data-delivery')).toBe('not_configured');
      expect(await page.getByTestId('invite-delivery').count()).toBe(0);
      await page.locator('[data-testid="invitation-row"][data-status="pending"]').filter({ hasText: email }).waitFor();
      return link;
    } finally {
      await context.close();
    }
  }

  it('brings a colleague in through the link: the shared agent, the Team computer, a member’s settings', async () => {
    const agent = await harness.service.call<AgentView>(admin, 'POST', `/api/workspaces/${admin.workspaceId}/agents`, {
      name: 'Team helper',
      computerMode: 'team',
    });
    await harness.service.call(admin, 'POST', `/api/agents/${agent.id}/computer/boot`);
    const email = `colleague-${randomUUID()}@example.test`;
    const link = await inviteFromPage(email);
    expect(new URL(link).pathname).toMatch(/^\/invite\/[A-Za-z0-9_-]{43}$/);

    const { context, page } = await harness.newPage({ viewport: { width: 390, height: 844 } });
    try {
      // Without the link there is no way in: the sign-in page says so, and the API refuses.
      await page.goto('/login');
      await page.getByTestId('signup-needs-invitation').waitFor();
      expect(await page.getByTestId('login-toggle-mode').count()).toBe(0);
      const refused = await harness.service.raw(null, 'POST', '/api/auth/signup', {
        email,
        password: 'a-good-password',
        displayName: 'Sneaky',
      });
      expect(refused.status).toBe(403);

      await page.goto(link);
      expect(await page.getByTestId('invitation-intro').innerText()).toBe('Admin 邀請你以「成員」的身分加入「Home」。');
      await page.getByTestId('login-display-name').fill('小美');
      await page.getByTestId('login-email').fill(email);
      await page.getByTestId('login-password').fill('a-good-password');
      await page.getByTestId('login-submit').click();
      await page.waitForURL((url) => url.pathname === '/');
      await page.getByTestId('agent-card').filter({ hasText: 'Team helper' }).click();
      await page.waitForURL(`**/agents/${agent.id}**`);
      await page.getByTestId('computer-toggle').click();
      await page.locator('[data-testid="computer-panel"][data-first-frame="true"]').waitFor({ timeout: 60_000 });
      await page.getByTestId('computer-close').click();

      // A member cannot open the workspace's settings: the page says so in their language.
      await page.goto('/settings');
      expect(await page.getByTestId('settings-members-only').innerText()).toContain(
        '只有工作區的擁有者和管理者可以開啟工作區設定',
      );
      expect(await page.getByTestId('settings-workspace-name').count()).toBe(0);
      expect(await page.getByTestId('workspace-model').count()).toBe(0);
      await page.goto('/settings/members');
      await page.locator('[data-testid="member-row"][data-role="member"]').filter({ hasText: '小美' }).waitFor();
      expect(await page.getByTestId('invite-form').count()).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await context.close();
    }

    // The link is spent: whoever opens it again is told so, in their language.
    for (const [locale, text] of [
      ['zh-TW', '這個邀請已經被使用過了'],
      ['en', 'This invitation has been used already'],
    ] as const) {
      const again = await harness.newPage({ locale });
      try {
        await again.page.goto(link);
        const refusal = again.page.getByTestId('invitation-refused');
        await refusal.waitFor();
        expect(await refusal.innerText()).toContain(text);
        expect(await again.page.getByTestId('invitation-signup').count()).toBe(0);
      } finally {
        await again.context.close();
      }
    }
    const invitations = await harness.service.call<InvitationListView>(
      admin,
      'GET',
      `/api/workspaces/${admin.workspaceId}/invitations`,
    );
    expect(invitations.items.find((i) => i.email === email)?.status).toBe('accepted');
  }, 150_000);

  it('revokes a pending invitation from the members page, and its link says so', async () => {
    const email = `revoked-${randomUUID()}@example.test`;
    const link = await inviteFromPage(email);
    const { context, page } = await harness.newPage({ cookie: admin.cookie });
    try {
      await page.goto('/settings/members');
      const row = page.locator('[data-testid="invitation-row"][data-status="pending"]').filter({ hasText: email });
      await row.getByTestId('invitation-revoke').click();
      await page.getByTestId('confirm-ok').click();
      await row.waitFor({ state: 'detached' });
    } finally {
      await context.close();
    }
    const visitor = await harness.newPage();
    try {
      await visitor.page.goto(link);
      expect(await visitor.page.getByTestId('invitation-refused').innerText()).toContain('這個邀請已經被撤銷了');
    } finally {
      await visitor.context.close();
    }
  }, 90_000);

  it('lets the admin open sign-up, and a signed-in person with another email see why the invitation is not theirs', async () => {
    const link = await inviteFromPage(`someone-${randomUUID()}@example.test`);
    try {
      const dashboard = await harness.newPage({ cookie: admin.cookie, locale: 'en' });
      try {
        await dashboard.page.goto('/admin');
        await dashboard.page.getByTestId('admin-signup-policy').selectOption('open');
        await dashboard.page.locator('[data-testid="admin-settings"][data-signup-policy="open"]').waitFor();
        // A box shows its new state while it is saved (check() fails if a click leaves it as it was), and keeps it.
        const allowLocal = dashboard.page.getByTestId('admin-allow-local-models');
        const before = await allowLocal.isChecked();
        await allowLocal.setChecked(!before);
        await dashboard.page.reload();
        expect(await allowLocal.isChecked()).toBe(!before);
        await allowLocal.setChecked(before);
        await dashboard.page.reload();
        expect(await allowLocal.isChecked()).toBe(before);
      } finally {
        await dashboard.context.close();
      }
      const visitor = await harness.newPage({ locale: 'en' });
      try {
        await visitor.page.goto('/login');
        await visitor.page.getByTestId('login-toggle-mode').waitFor();
        expect(await visitor.page.getByTestId('signup-needs-invitation').count()).toBe(0);
      } finally {
        await visitor.context.close();
      }

      const other = await signUp(harness.service.app.url);
      const { context, page } = await harness.newPage({ cookie: other.cookie, locale: 'en' });
      try {
        await page.goto(link);
        await page.getByTestId('invitation-accept').click();
        expect(await page.getByTestId('invitation-error').innerText()).toBe(
          'This invitation was sent to another email address. Use the invited email.',
        );
        // Signing out stays on the link, for the invited person to sign up or in.
        await page.getByTestId('invitation-sign-out').click();
        await page.getByTestId('invitation-signup').waitFor();
        // Signing in on the link with the wrong account again: no Accept that cannot work, a way out instead.
        await page.getByTestId('login-toggle-mode').click();
        await page.getByTestId('login-email').fill(other.email);
        await page.getByTestId('login-password').fill(other.password);
        await page.getByTestId('login-submit').click();
        expect(await page.getByTestId('login-error').innerText()).toBe(
          'This invitation was sent to another email address. Use the invited email.',
        );
        expect(await page.getByTestId('login-submit').count()).toBe(0);
        await page.getByTestId('invitation-sign-out').click();
        await page.getByTestId('invitation-signup').waitFor();
      } finally {
        await context.close();
      }
    } finally {
      // Back to the default for whatever runs after.
      await harness.service.call(admin, 'PATCH', '/api/admin/settings', { signupPolicy: 'invite' });
    }
  }, 90_000);

  it('refuses an expired invitation in the person’s language, on the page and to the API', async () => {
    const email = `late-${randomUUID()}@example.test`;
    const created = await harness.service.call<CreatedInvitationView>(
      admin,
      'POST',
      `/api/workspaces/${admin.workspaceId}/invitations`,
      { email, role: 'member', expiresInDays: 1 },
    );
    // A day is the shortest an invitation lives: its expiry is moved into the past, as the days would.
    const client = new pg.Client({ connectionString: harness.service.database.url });
    await client.connect();
    try {
      const moved = await client.query(`UPDATE "Invitation" SET "expiresAt" = now() - interval '1 minute' WHERE id = $1`, [
        created.id,
      ]);
      expect(moved.rowCount).toBe(1);
    } finally {
      await client.end();
    }
    for (const [locale, text] of [
      ['zh-TW', '這個邀請已經過期了'],
      ['en', 'This invitation has expired'],
    ] as const) {
      const visitor = await harness.newPage({ locale, viewport: { width: 390, height: 844 } });
      try {
        await visitor.page.goto(created.path);
        expect(await visitor.page.getByTestId('invitation-refused').innerText()).toContain(text);
        expect(await visitor.page.getByTestId('invitation-signup').count()).toBe(0);
        expect(await visitor.page.getByTestId('invitation-login').count()).toBe(0);
      } finally {
        await visitor.context.close();
      }
    }
    const refused = await harness.service.raw(null, 'POST', '/api/auth/signup', {
      email,
      password: 'a-good-password',
      displayName: 'Late',
      invitationToken: created.token,
    });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { reason: string } }).error.reason).toBe('invitation_expired');
    const listed = await harness.service.call<InvitationListView>(
      admin,
      'GET',
      `/api/workspaces/${admin.workspaceId}/invitations`,
    );
    expect(listed.items.find((i) => i.id === created.id)?.status).toBe('expired');
    const members = await harness.service.call<{ items: { email: string }[] }>(
      admin,
      'GET',
      `/api/workspaces/${admin.workspaceId}/members`,
    );
    expect(members.items.map((m) => m.email)).not.toContain(email);
  }, 90_000);

  it('under the `closed` policy says so on the sign-in page and lets an invitation be taken only by signing in', async () => {
    const link = await inviteFromPage(`closed-${randomUUID()}@example.test`);
    try {
      const dashboard = await harness.newPage({ cookie: admin.cookie, locale: 'en' });
      try {
        await dashboard.page.goto('/admin');
        await dashboard.page.getByTestId('admin-signup-policy').selectOption('closed');
        await dashboard.page.locator('[data-testid="admin-settings"][data-signup-policy="closed"]').waitFor();
      } finally {
        await dashboard.context.close();
      }
      for (const [locale, text] of [
        ['zh-TW', '這個伺服器目前不開放註冊新帳號'],
        ['en', 'This server does not take new sign-ups'],
      ] as const) {
        const visitor = await harness.newPage({ locale, viewport: { width: 390, height: 844 } });
        try {
          await visitor.page.goto('/login');
          expect(await visitor.page.getByTestId('signup-closed').innerText()).toContain(text);
          expect(await visitor.page.getByTestId('login-toggle-mode').count()).toBe(0);
          expect(await visitor.page.getByTestId('signup-needs-invitation').count()).toBe(0);
        } finally {
          await visitor.context.close();
        }
      }
      const visitor = await harness.newPage({ locale: 'en' });
      try {
        await visitor.page.goto(link);
        await visitor.page.getByTestId('invitation-login').waitFor();
        expect(await visitor.page.getByTestId('invitation-login').innerText()).toContain(
          'This server takes no new sign-ups: sign in with your account to accept.',
        );
        expect(await visitor.page.getByTestId('invitation-signup').count()).toBe(0);
        expect(await visitor.page.getByTestId('login-toggle-mode').count()).toBe(0);
      } finally {
        await visitor.context.close();
      }
      const refused = await harness.service.raw(null, 'POST', '/api/auth/signup', {
        email: `stranger-${randomUUID()}@example.test`,
        password: 'a-good-password',
        displayName: 'Stranger',
      });
      expect(refused.status).toBe(403);
    } finally {
      await harness.service.call(admin, 'PATCH', '/api/admin/settings', { signupPolicy: 'invite' });
    }
  }, 90_000);
});
