import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Secret, TOTP } from 'otpauth';
import type { AgentVaultView, AgentView, VaultAccountView } from '@lazyboy/contracts';
import { signUp } from '../support/index.js';
import { WebHarness } from './web-harness.js';

// The vault's pages in a real Chromium: a login saved, its code shown, edited with the password kept,
// read back only with the owner's own password, deleted, and a CSV imported, at phone width; shared logins
// granted to one agent by an owner and only listed to a member. No secret is in a page unless revealed.

const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** The codes a person may be shown around now (the dialog's code may be from the window before). */
function codesAroundNow(): string[] {
  const totp = new TOTP({ secret: Secret.fromBase32(TOTP_SECRET) });
  const now = Date.now();
  return [-30_000, 0, 30_000].map((shift) => totp.generate({ timestamp: now + shift }));
}

describe('the vault in a real browser', () => {
  const harness = new WebHarness();

  beforeAll(async () => {
    await harness.start((request) => ({ text: `Echo: ${request.messages.length}` }));
  }, 120_000);

  afterAll(async () => {
    await harness.stop();
  }, 120_000);

  it("saves an agent's login, shows its code, keeps the password on an edit, reveals it to the owner only with their password, imports a CSV and deletes, at 390 px", async () => {
    const owner = await signUp(harness.service.app.url);
    const agent = await harness.service.call<AgentView>(owner, 'POST', `/api/workspaces/${owner.workspaceId}/agents`, {
      name: 'Mia',
    });
    const password = 'bank-Pa55-word-9d2e71';
    const { context, page } = await harness.newPage({
      cookie: owner.cookie,
      locale: 'en',
      viewport: { width: 390, height: 844 },
    });
    try {
      await page.goto(`/agents/${agent.id}`);
      await page.getByTestId('agent-menu').locator('summary').click();
      await page.getByTestId('agent-vault-link').click();
      await page.waitForURL(`**/agents/${agent.id}/vault`);
      await page.getByTestId('vault-own-list-empty').waitFor();

      // A site that is not a web address is refused and nothing is saved.
      await page.getByTestId('vault-add').click();
      const dialog = page.getByTestId('vault-account-dialog');
      await dialog.getByTestId('vault-site').fill('ftp://files.example.test');
      await dialog.getByTestId('vault-username').fill('mia@example.test');
      await dialog.getByTestId('vault-password').fill(password);
      await dialog.getByTestId('vault-account-save').click();
      expect(await dialog.getByTestId('vault-account-error').innerText()).toContain('Site');
      expect((await harness.service.call<AgentVaultView>(owner, 'GET', `/api/agents/${agent.id}/vault`)).own).toEqual([]);

      await dialog.getByTestId('vault-site').fill('bank.example.test/login');
      await dialog.getByTestId('vault-totp').fill(TOTP_SECRET);
      await dialog.getByTestId('vault-label').fill('The bank');
      await dialog.getByTestId('vault-notes').fill('Branch 12');
      await dialog.getByTestId('vault-account-save').click();
      await dialog.waitFor({ state: 'detached' });
      const row = page.getByTestId('vault-row').filter({ hasText: 'The bank' });
      await row.getByTestId('vault-row-totp').waitFor();
      let saved = (await harness.service.call<AgentVaultView>(owner, 'GET', `/api/agents/${agent.id}/vault`)).own;
      expect(saved).toMatchObject([
        { site: 'https://bank.example.test', username: 'mia@example.test', label: 'The bank', hasTotp: true, notes: 'Branch 12' },
      ]);
      const accountId = saved[0]!.id;
      expect(await page.content()).not.toContain(password);

      // The current code, counting down.
      await row.getByTestId('vault-show-code').click();
      const code = page.getByTestId('vault-code');
      await code.waitFor();
      expect(codesAroundNow()).toContain(await code.innerText());
      expect(await page.getByTestId('vault-code-left').innerText()).toMatch(/Changes in \d+ s/);
      await page.getByTestId('vault-code-close').click();

      // An edit with the password left empty keeps it; the TOTP secret can be removed.
      await row.getByTestId('vault-edit').click();
      expect(await dialog.getByTestId('vault-password').inputValue()).toBe('');
      await dialog.getByTestId('vault-username').fill('mia.w@example.test');
      await dialog.getByTestId('vault-totp-remove').check();
      await dialog.getByTestId('vault-account-save').click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByTestId('vault-row-username').filter({ hasText: 'mia.w@example.test' }).waitFor();
      expect(await row.getByTestId('vault-row-totp').count()).toBe(0);

      // Reading the password back: a wrong own password is refused, the right one shows it, closing forgets it.
      await row.getByTestId('vault-reveal').click();
      const reveal = page.getByTestId('vault-reveal-dialog');
      await reveal.getByTestId('vault-reveal-own-password').fill('not-my-password');
      await reveal.getByTestId('vault-reveal-submit').click();
      expect(await reveal.getByTestId('vault-reveal-error').innerText()).toContain('not your password');
      await reveal.getByTestId('vault-reveal-own-password').fill(owner.password);
      await reveal.getByTestId('vault-reveal-submit').click();
      expect(await reveal.getByTestId('vault-revealed-password').innerText()).toBe(password);
      expect(await reveal.getByTestId('vault-revealed-totp').count()).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await reveal.getByTestId('vault-reveal-close').click();
      await reveal.waitFor({ state: 'detached' });
      expect(await page.content()).not.toContain(password);

      // A browser's export: two new rows, one saved already, one without a password.
      const csv = [
        'name,url,username,password,note',
        'Bank,https://bank.example.test,mia.w@example.test,other-pass-1,',
        'Shop,https://shop.example.test/account,mia,shop-pass-2,',
        'Mail,mail.example.test,mia@mail.example.test,mail-pass-3,weekly',
        'Broken,https://broken.example.test,someone,,',
      ].join('\n');
      await page
        .getByTestId('vault-import-file')
        .setInputFiles({ name: 'passwords.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByTestId('vault-import-run').click();
      const result = page.getByTestId('vault-import-result');
      await result.waitFor();
      expect(await result.innerText()).toContain('Imported 2 logins; 1 were saved already');
      expect(await page.getByTestId('vault-import-skipped').innerText()).toContain('Line 5');
      await page.getByTestId('vault-row').filter({ hasText: 'shop.example.test' }).waitFor();
      expect(await page.getByTestId('vault-row').count()).toBe(3);
      saved = (await harness.service.call<AgentVaultView>(owner, 'GET', `/api/agents/${agent.id}/vault`)).own;
      expect(saved.map((a) => a.site).sort()).toEqual([
        'https://bank.example.test',
        'https://mail.example.test',
        'https://shop.example.test',
      ]);

      await row.getByTestId('vault-delete').click();
      await page.getByTestId('confirm-ok').click();
      await row.waitFor({ state: 'detached' });
      saved = (await harness.service.call<AgentVaultView>(owner, 'GET', `/api/agents/${agent.id}/vault`)).own;
      expect(saved.map((a) => a.id)).not.toContain(accountId);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await page.content()).not.toContain('other-pass-1');
    } finally {
      await context.close();
    }
  }, 120_000);

  it('lets an owner share a login with one agent, and shows a member only the list', async () => {
    const owner = await signUp(harness.service.app.url);
    const member = await signUp(harness.service.app.url);
    await harness.service.call(owner, 'POST', `/api/workspaces/${owner.workspaceId}/members`, { email: member.email });
    const create = (name: string) =>
      harness.service.call<AgentView>(owner, 'POST', `/api/workspaces/${owner.workspaceId}/agents`, { name });
    const granted = await create('Granted agent');
    const other = await create('Other agent');
    const password = 'shared-Pa55-4c1f0a';

    const { context, page } = await harness.newPage({ cookie: owner.cookie, locale: 'zh-TW' });
    try {
      await page.goto('/settings/members');
      await page.getByTestId('settings-tab-vault').click();
      await page.waitForURL('**/settings/vault');
      await page.getByTestId('vault-shared-list-empty').waitFor();
      await page.getByTestId('vault-add').click();
      const dialog = page.getByTestId('vault-account-dialog');
      await dialog.getByTestId('vault-site').fill('https://crm.example.test');
      await dialog.getByTestId('vault-username').fill('team@example.test');
      await dialog.getByTestId('vault-password').fill(password);
      await dialog.getByTestId('vault-account-save').click();
      await dialog.waitFor({ state: 'detached' });
      const row = page.getByTestId('vault-row').filter({ hasText: 'crm.example.test' });
      await row.getByTestId('vault-grants-summary').click();
      expect(await row.getByTestId('vault-grants-summary').innerText()).toBe('還沒有 Agent 能用');
      await row.locator(`[data-testid="vault-grant"][data-agent-id="${granted.id}"]`).check();
      await row.getByTestId('vault-grants-summary').filter({ hasText: '1 個 Agent 能用' }).waitFor();
      // The tick shows at once; the list is read once the change has been saved (the boxes are usable again).
      await row.locator('[data-testid="vault-grants-choices"][aria-busy="false"]').waitFor();
      const shared = await harness.service.call<VaultAccountView[]>(owner, 'GET', `/api/workspaces/${owner.workspaceId}/vault`);
      expect(shared).toMatchObject([{ username: 'team@example.test', agentIds: [granted.id] }]);

      // The same site and username again: refused in the person's language, nothing added.
      await page.getByTestId('vault-add').click();
      await dialog.getByTestId('vault-site').fill('crm.example.test');
      await dialog.getByTestId('vault-username').fill('team@example.test');
      await dialog.getByTestId('vault-password').fill('another');
      await dialog.getByTestId('vault-account-save').click();
      expect(await dialog.getByTestId('vault-account-error').innerText()).toBe('這個網站和帳號已經存過了。');
      await page.keyboard.press('Escape');
      expect(
        await harness.service.call<VaultAccountView[]>(owner, 'GET', `/api/workspaces/${owner.workspaceId}/vault`),
      ).toHaveLength(1);

      // The granted agent's vault page lists it; the other's does not.
      await page.goto(`/agents/${granted.id}/vault`);
      await page.getByTestId('vault-shared-list').getByTestId('vault-row').filter({ hasText: 'team@example.test' }).waitFor();
      await page.goto(`/agents/${other.id}/vault`);
      await page.getByTestId('vault-shared-list-empty').waitFor();
    } finally {
      await context.close();
    }

    const asMember = await harness.newPage({ cookie: member.cookie, locale: 'en' });
    try {
      const memberPage = asMember.page;
      await memberPage.goto('/settings/vault');
      await memberPage.getByTestId('workspace-select').selectOption(owner.workspaceId);
      await memberPage.goto('/settings/vault');
      await memberPage.getByTestId('settings-ask-owner').waitFor();
      await memberPage.getByTestId('vault-row').filter({ hasText: 'team@example.test' }).waitFor();
      for (const action of ['vault-add', 'vault-edit', 'vault-delete', 'vault-reveal', 'vault-grants'])
        expect(await memberPage.getByTestId(action).count()).toBe(0);

      // On an agent's page a member keeps the agent's own logins, but reads none back.
      await memberPage.goto(`/agents/${granted.id}/vault`);
      await memberPage.getByTestId('vault-shared-list').getByTestId('vault-row').waitFor();
      await memberPage.getByTestId('vault-add').click();
      const dialog = memberPage.getByTestId('vault-account-dialog');
      await dialog.getByTestId('vault-site').fill('https://wiki.example.test');
      await dialog.getByTestId('vault-username').fill('member');
      await dialog.getByTestId('vault-password').fill('member-pass-77');
      await dialog.getByTestId('vault-account-save').click();
      await memberPage.getByTestId('vault-own-list').getByTestId('vault-row').waitFor();
      expect(await memberPage.getByTestId('vault-reveal').count()).toBe(0);
      expect(await memberPage.getByTestId('vault-shared-list').getByTestId('vault-edit').count()).toBe(0);
      expect(await memberPage.getByTestId('vault-manage-shared').count()).toBe(0);
      expect(await memberPage.content()).not.toContain(password);
    } finally {
      await asMember.context.close();
    }
  }, 120_000);
});
