import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { AgentView, WorkspaceView } from '@lazyboy/contracts';
import { ScriptedModelServer, type ReceivedRequest, type Turn } from '@lazyboy/model';
import type { Page } from 'playwright-core';
import { LOCAL_MODEL_SERVER_CANDIDATES } from '../../apps/api/src/model/workspace-model.service.js';
import { logInFirstAdmin, type TestUser, lastPersonText } from '../support/index.js';
import { WebHarness } from './web-harness.js';
import { createAgentFromSidebar, signInThroughLoginPage } from '../support/web-walkthrough.js';

// A fresh install as its first admin meets it in a real Chromium: no model anywhere, so the chat says so
// before anything is sent and points at the settings; the settings offer the model server found on this
// machine (here a scripted one), whose models the page lists; a test request, a save, and the agent answers.
// Then a wrong key: the provider's own refusal in the test and in the chat, in zh-TW and in English, and
// the key itself on no page and in no answer.

const ADMIN_EMAIL = 'admin@lazyboy.test';
const APP_TOKEN = randomBytes(24).toString('hex');
const WRONG_KEY = 'sk-wrong-key-7f3a-1234';

/** A model server like a hosted one behind a proxy: no key is fine (like Ollama), a wrong key is refused. */
function answer(request: ReceivedRequest): Turn {
  const key = request.headers['authorization']?.replace(/^Bearer /, '');
  if (key !== undefined)
    return {
      httpStatus: 401,
      errorBody: {
        error: {
          message: `Incorrect API key provided: ${key.slice(0, 6)}…${key.slice(-4)}.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    };
  return { text: `llama3 here: you said ${lastPersonText(request) || 'nothing'}.` };
}

/** A loopback port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the first run in a real browser', () => {
  const local = new ScriptedModelServer({ model: 'llama3', models: ['llama3', 'qwen2.5'], script: answer });
  const harness = new WebHarness();
  let admin: TestUser;

  beforeAll(async () => {
    await local.start();
    await harness.start(
      () => ({ text: 'the host model must not answer' }),
      {
        LAZYBOY_APP_TOKEN: APP_TOKEN,
        LAZYBOY_ADMIN_EMAIL: ADMIN_EMAIL,
        LAZYBOY_SIGNUP: 'invite',
        LAZYBOY_ALLOW_LOCAL_MODEL_SERVERS: 'true',
        LAZYBOY_ENVIRONMENT_MODEL_SCOPE: 'first_workspace',
      },
      {
        environmentModel: false,
        providers: [{ provide: LOCAL_MODEL_SERVER_CANDIDATES, useValue: [{ kind: 'ollama', baseUrl: local.url }] }],
      },
    );
    const cookie = await logInFirstAdmin(harness.service.app.url, ADMIN_EMAIL, APP_TOKEN);
    const me = await harness.service.call<{ user: { id: string }; workspaces: { id: string }[] }>(
      { cookie } as TestUser,
      'GET',
      '/api/auth/me',
    );
    admin = {
      email: ADMIN_EMAIL,
      password: APP_TOKEN,
      displayName: 'Admin',
      cookie,
      userId: me.user.id,
      workspaceId: me.workspaces[0]!.id,
    };
  }, 120_000);

  afterAll(async () => {
    await harness.stop();
    await local.close();
  }, 120_000);

  async function lastAnswer(page: Page): Promise<string> {
    return page.locator('[data-testid="message"][data-role="assistant"]').last().innerText();
  }

  it('signs in, is told there is no model, picks the local server found, tests it, saves, and gets an answer', async () => {
    const { context, page } = await harness.newPage();
    try {
      await signInThroughLoginPage(page, ADMIN_EMAIL, APP_TOKEN);
      await createAgentFromSidebar(page, '小助手');
      const missing = page.getByTestId('model-missing');
      await missing.waitFor();
      expect(await missing.getAttribute('data-code')).toBe('model_not_configured');
      expect(await missing.innerText()).toContain('還沒有設定模型');
      await page.getByTestId('model-missing-settings').click();
      await page.waitForURL('**/settings');

      const section = page.getByTestId('workspace-model');
      expect(await section.getByTestId('workspace-model-readiness').getAttribute('data-usable')).toBe('false');
      await section.locator('[data-testid="local-server"][data-kind="ollama"]').click();
      expect(await section.getByTestId('workspace-model-base-url').inputValue()).toBe(local.url);
      expect(await section.getByTestId('workspace-model-name').inputValue()).toBe('llama3');
      // The endpoint's own list: both of its models offered.
      await section.locator('[data-testid="workspace-model-name-list"][data-state="listed"]').waitFor();
      expect(await section.getByTestId('model-choice').allInnerTexts()).toEqual(['llama3', 'qwen2.5']);

      await section.getByTestId('workspace-model-test').click();
      const result = section.getByTestId('model-test-result');
      await result.waitFor();
      expect(await result.getAttribute('data-ok')).toBe('true');
      expect(await result.innerText()).toContain('llama3 here');
      await section.getByTestId('workspace-model-save').click();
      await section.getByTestId('settings-saved').waitFor();
      expect(await section.getByTestId('workspace-model-readiness').getAttribute('data-usable')).toBe('true');

      await page.getByTestId('agent-item').filter({ hasText: '小助手' }).click();
      await page.getByTestId('composer').fill('你好');
      await page.getByTestId('composer').press('Enter');
      await page
        .locator('[data-testid="message"][data-role="assistant"]')
        .filter({ hasText: 'llama3 here: you said 你好.' })
        .waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('model-missing').count()).toBe(0);
      const saved = await harness.service.call<WorkspaceView>(admin, 'GET', `/api/workspaces/${admin.workspaceId}`);
      expect(saved.model.settings).toEqual({ provider: 'openai-chat', baseUrl: local.url, model: 'llama3' });
    } finally {
      await context.close();
    }
  }, 120_000);

  it("shows a refused key's own error in the test and in the chat, in zh-TW and in English, and never the key", async () => {
    const [agent] = await harness.service.call<AgentView[]>(admin, 'GET', `/api/workspaces/${admin.workspaceId}/agents`);
    for (const [locale, text] of [
      ['zh-TW', '模型服務拒絕了 API 金鑰'],
      ['en', 'The model provider refused the API key'],
    ] as const) {
      const { context, page } = await harness.newPage({ cookie: admin.cookie, locale, viewport: { width: 390, height: 844 } });
      try {
        await page.goto('/settings');
        const section = page.getByTestId('workspace-model');
        if (locale === 'zh-TW') {
          await section.getByTestId('workspace-model-key-input').fill(WRONG_KEY);
        } else {
          // Saved by the zh-TW round: shown as its last four, and replaced by the same wrong key.
          expect(await section.getByTestId('workspace-model-key-masked').innerText()).toBe('••••1234');
          await section.getByTestId('workspace-model-key-replace').click();
          await section.getByTestId('workspace-model-key-input').fill(WRONG_KEY);
        }
        await section.getByTestId('workspace-model-test').click();
        const result = section.getByTestId('model-test-result');
        await result.waitFor();
        expect(await result.getAttribute('data-code')).toBe('model_key_refused');
        expect(await result.innerText()).toContain(text);
        expect(await result.getByTestId('provider-text').innerText()).toContain('Incorrect API key provided: sk-wro…1234.');
        await section.getByTestId('workspace-model-save').click();
        await section.getByTestId('workspace-model-key-masked').waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        if (locale === 'en') {
          // Another base URL drops the stored key on saving: the page says so and asks for the new one (not saved).
          expect(await section.getByTestId('workspace-model-key-dropped').count()).toBe(0);
          await section.getByTestId('workspace-model-base-url').fill('http://models.example.net/v1');
          expect(await section.getByTestId('workspace-model-key-dropped').innerText()).toContain(
            'The stored key will be removed',
          );
          await section.getByTestId('workspace-model-key-input').waitFor();
        }

        await page.goto(`/agents/${agent!.id}`);
        await page.getByTestId('composer').fill(`hello in ${locale}`);
        await page.getByTestId('composer').press('Enter');
        const notice = page.locator('[data-testid="message"][data-notice="model_key_refused"]').last();
        await notice.waitFor({ timeout: 20_000 });
        expect(await lastAnswer(page)).toContain(text);
        expect(await notice.getByTestId('provider-text').innerText()).toContain('Incorrect API key provided: sk-wro…1234.');
        // The service's own English sentence stays out of the page, and so does the key.
        const shown = await page.locator('body').innerText();
        expect(shown).not.toContain('I could not run this');
        expect(shown).not.toContain('refused the API key for');
        expect(await page.content()).not.toContain(WRONG_KEY);
        // The admin's list of runs says why in the person's language; the service's English is a tooltip.
        await page.goto('/admin');
        const why = page.getByTestId('admin-run-error').first();
        expect(await why.innerText()).toContain(text);
        expect(await why.getAttribute('title')).toContain('refused the API key for');
      } finally {
        await context.close();
      }
    }
    const view = await harness.service.raw(admin, 'GET', `/api/workspaces/${admin.workspaceId}`);
    expect(await view.text()).not.toContain(WRONG_KEY);
    // Removed, the local server answers again.
    await harness.service.call(admin, 'PATCH', `/api/workspaces/${admin.workspaceId}`, { modelApiKey: null });
  }, 150_000);
  it('shows an unreachable model server in the test and in the chat, in zh-TW and in English', async () => {
    const agents = await harness.service.call<AgentView[]>(admin, 'GET', `/api/workspaces/${admin.workspaceId}/agents`);
    const agent =
      agents[0] ??
      (await harness.service.call<AgentView>(admin, 'POST', `/api/workspaces/${admin.workspaceId}/agents`, { name: 'Ada' }));
    const unreachable = `http://127.0.0.1:${await closedPort()}/v1`;
    for (const [locale, text] of [
      ['zh-TW', '連不到模型伺服器'],
      ['en', 'Cannot reach the model server'],
    ] as const) {
      // Each round starts from the working local server, and changes it in the page.
      await harness.service.call(admin, 'PATCH', `/api/workspaces/${admin.workspaceId}`, {
        modelSettings: { provider: 'openai-chat', baseUrl: local.url, model: 'llama3' },
        modelApiKey: null,
      });
      const { context, page } = await harness.newPage({ cookie: admin.cookie, locale, viewport: { width: 390, height: 844 } });
      try {
        await page.goto('/settings');
        const section = page.getByTestId('workspace-model');
        await section.getByTestId('workspace-model-base-url').fill(unreachable);
        await section.getByTestId('workspace-model-test').click();
        const result = section.getByTestId('model-test-result');
        await result.waitFor();
        expect(await result.getAttribute('data-code')).toBe('model_unreachable');
        expect(await result.innerText()).toContain(text);
        await section.getByTestId('workspace-model-save').click();
        await section.getByTestId('settings-saved').waitFor();

        await page.goto(`/agents/${agent.id}`);
        await page.getByTestId('composer').fill(`anyone there, in ${locale}?`);
        await page.getByTestId('composer').press('Enter');
        const notice = page.locator('[data-testid="message"][data-notice="model_unreachable"]').last();
        await notice.waitFor({ timeout: 60_000 });
        expect(await lastAnswer(page)).toContain(text);
        expect(await page.locator('body').innerText()).not.toContain('I could not run this');
      } finally {
        await context.close();
      }
    }
    await harness.service.call(admin, 'PATCH', `/api/workspaces/${admin.workspaceId}`, {
      modelSettings: { provider: 'openai-chat', baseUrl: local.url, model: 'llama3' },
    });
  }, 180_000);
});
