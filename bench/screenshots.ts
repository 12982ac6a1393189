// Takes the screenshots in docs/screenshots/ of the main screens, from the real product (Postgres,
// Redis, the API and the web server as processes, a worker desktop; the model scripted). Not a
// benchmark: it lives here for the same stack start-up. Run with `npm run docs:screenshots`.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { repoRoot } from '@lazyboy/localstack';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { signUp, asPerson, sleep } from '../test/support/index.js';
import { addSessionCookie, launchChromium } from '../test/support/browser.js';
import { lastPersonText } from '../test/support/model-requests.js';
import { startProductStack, type ProductStack } from './stack-processes.js';

const OUT = path.join(repoRoot, 'docs/screenshots');
const ADMIN_EMAIL = 'admin@lazyboy.local';
const ADMIN_PASSWORD = randomBytes(24).toString('hex');

/** The task whose question parks a run (docs/screenshots/parked-run-dismiss.png). */
const PARKING_TASK = '幫我訂明天中午的便當';

function script(request: ReceivedRequest): Turn {
  if (lastPersonText(request) === PARKING_TASK)
    return { toolCalls: [{ name: 'request_user_input', arguments: { question: '要訂幾個？' } }] };
  const tools = request.messages.filter((m) => m.role === 'tool').length;
  if (tools === 0)
    return {
      toolCalls: [
        { name: 'send_message', arguments: { text: '好的，我先整理這週三場會議的重點。' } },
        {
          name: 'update_plan',
          arguments: {
            steps: [
              { title: '讀取會議紀錄', status: 'done' },
              { title: '整理決議與待辦', status: 'done' },
              { title: '寫成摘要', status: 'active' },
            ],
          },
        },
      ],
    };
  return {
    toolCalls: [
      {
        name: 'report_done',
        arguments: {
          summary:
            '本週摘要：\n1. 產品會議決定下週二上線新版結帳流程。\n2. 設計評審通過手機版側欄。\n3. 待辦：小美週四前補齊測試報告。',
        },
      },
    ],
  };
}

let stack: ProductStack | null = null;
let browser: Browser | null = null;
try {
  mkdirSync(OUT, { recursive: true });
  stack = await startProductStack({
    prefix: 'lazyboy-screenshots-',
    database: 'lazyboy_screens',
    script,
    // Local servers allowed: the workspace's own model is the scripted one, on loopback.
    apiEnv: { LAZYBOY_APP_TOKEN: ADMIN_PASSWORD, LAZYBOY_ADMIN_EMAIL: ADMIN_EMAIL, LAZYBOY_ALLOW_LOCAL_MODEL_SERVERS: 'true' },
  });
  const { api, web } = stack;

  const login = await fetch(new URL('/api/auth/login', api.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
  });
  if (!login.ok) throw new Error(`admin login answered ${login.status}`);
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const me = (await (await fetch(new URL('/api/auth/me', api.url), { headers: { cookie } })).json()) as {
    workspaces: { id: string }[];
  };
  const workspaceId = me.workspaces[0]!.id;
  const call = asPerson(api.url, cookie).call;
  const agents: { id: string }[] = [];
  for (const [name, seed] of [
    ['小助手', 'helper'],
    ['研究員', 'research'],
    ['Ada', 'ada'],
  ] as const)
    agents.push(await call<{ id: string }>('POST', `/api/workspaces/${workspaceId}/agents`, { name, avatarSeed: seed }));
  const colleague = await signUp(api.url, { displayName: '小美' });
  await call('POST', `/api/workspaces/${workspaceId}/members`, { email: colleague.email, role: 'admin' });
  await call('PATCH', `/api/workspaces/${workspaceId}`, {
    modelSettings: { provider: 'openai-chat', baseUrl: stack.model.url, model: stack.model.model },
    modelApiKey: `sk-demo-${randomBytes(8).toString('hex')}-4f2a`,
  });
  // A second workspace, which the host's model does not serve: its agent has no model yet.
  const lab = await call<{ id: string }>('POST', '/api/workspaces', { name: '實驗室' });
  const newcomer = await call<{ id: string }>('POST', `/api/workspaces/${lab.id}/agents`, {
    name: '新同事',
    avatarSeed: 'newcomer',
  });
  const chat = await call<{ id: string }>('POST', `/api/agents/${agents[0]!.id}/chats`, { title: '會議摘要' });
  const posted = await call<{ run: { id: string } }>('POST', `/api/chats/${chat.id}/messages`, {
    text: '幫我整理這週的會議紀錄，列出決議和待辦。',
    clientNonce: `screens-${randomBytes(6).toString('hex')}`,
  });
  for (let i = 0; i < 100; i++) {
    const run = await call<{ status: string }>('GET', `/api/runs/${posted.run.id}`);
    if (run.status === 'completed') break;
    await sleep(100);
  }
  await call('POST', `/api/agents/${agents[0]!.id}/computer/boot`);

  browser = await launchChromium();
  const chromiumBrowser = browser;
  const context = async (viewport: { width: number; height: number }, signedIn: boolean): Promise<BrowserContext> => {
    const ctx = await chromiumBrowser.newContext({ baseURL: web.url, viewport, locale: 'zh-TW', deviceScaleFactor: 1 });
    if (signedIn) await addSessionCookie(ctx, cookie, web.url);
    return ctx;
  };
  const desktop = { width: 1440, height: 900 };

  const signedOut = await (await context(desktop, false)).newPage();
  await signedOut.goto('/login');
  await signedOut.getByTestId('login-form').waitFor();
  await signedOut.screenshot({ path: path.join(OUT, 'login.png') });

  const page = await (await context(desktop, true)).newPage();
  await page.goto(`/agents/${agents[0]!.id}?chat=${chat.id}`);
  await page.locator('[data-testid="message"][data-role="assistant"]').last().waitFor();
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(OUT, 'conversation.png') });

  await page.getByTestId('computer-toggle').click();
  await page.locator('[data-testid="computer-panel"][data-first-frame="true"]').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(1_000);
  await page.screenshot({ path: path.join(OUT, 'computer-panel.png') });

  await page.goto('/admin');
  await page.getByTestId('admin-dashboard').waitFor();
  await page.waitForTimeout(1_000);
  await page.screenshot({ path: path.join(OUT, 'admin.png'), fullPage: true });

  const phone = await (await context({ width: 390, height: 844 }, true)).newPage();
  await phone.goto(`/agents/${agents[0]!.id}?chat=${chat.id}`);
  await phone.locator('[data-testid="message"][data-role="assistant"]').last().waitFor();
  await phone.waitForTimeout(500);
  await phone.screenshot({ path: path.join(OUT, 'phone.png') });

  // A message queued behind the agent's run parked in another chat, with the button that dismisses that run.
  const lunch = await call<{ id: string }>('POST', `/api/agents/${agents[1]!.id}/chats`, { title: '訂便當' });
  const parking = await call<{ run: { id: string } }>('POST', `/api/chats/${lunch.id}/messages`, {
    text: PARKING_TASK,
    clientNonce: `screens-${randomBytes(6).toString('hex')}`,
  });
  for (let i = 0; i < 100; i++) {
    const run = await call<{ status: string }>('GET', `/api/runs/${parking.run.id}`);
    if (run.status === 'waiting_input') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const weekend = await call<{ id: string }>('POST', `/api/agents/${agents[1]!.id}/chats`, { title: '週末計畫' });
  await call('POST', `/api/chats/${weekend.id}/messages`, {
    text: '週末的天氣如何？',
    clientNonce: `screens-${randomBytes(6).toString('hex')}`,
  });
  await phone.goto(`/agents/${agents[1]!.id}?chat=${weekend.id}`);
  await phone.getByTestId('blocking-run').waitFor();
  await phone.waitForTimeout(300);
  await phone.screenshot({ path: path.join(OUT, 'parked-run-dismiss.png') });

  // The settings: the workspace's model (its endpoint's models listed, a test run), members and an
  // invitation link, an agent's own settings; the link's page as the invited person opens it on a phone.
  const tall = await (await context({ width: 1440, height: 1500 }, true)).newPage();
  await tall.goto('/settings');
  const model = tall.getByTestId('workspace-model');
  await model.locator('[data-testid="workspace-model-name-list"][data-state="listed"]').waitFor();
  await model.getByTestId('workspace-model-test').click();
  await model.getByTestId('model-test-result').waitFor();
  await tall.waitForTimeout(300);
  await tall.screenshot({ path: path.join(OUT, 'settings.png') });

  await tall.goto('/settings/members');
  await tall.getByTestId('invite-email').fill('ming@example.com');
  await tall.getByTestId('invite-submit').click();
  const link = await tall.getByTestId('invite-link-url').inputValue();
  await tall.locator('[data-testid="invitation-row"]').first().waitFor();
  await tall.waitForTimeout(300);
  await tall.screenshot({ path: path.join(OUT, 'members.png') });

  await tall.goto(`/agents/${agents[0]!.id}/settings`);
  await tall.getByTestId('agent-model').waitFor();
  await tall.waitForTimeout(300);
  await tall.screenshot({ path: path.join(OUT, 'agent-settings.png') });

  // The vault: an agent's saved logins, the workspace's shared ones with the agents ticked for one, and on a
  // phone the current 2FA code and a new login being typed.
  const saveLogin = (body: Record<string, string>) => call('POST', `/api/agents/${agents[0]!.id}/vault`, body);
  await saveLogin({
    site: 'https://bank.example.com',
    username: 'helper@example.com',
    password: randomBytes(12).toString('hex'),
    totp: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    label: '網路銀行',
  });
  await saveLogin({ site: 'github.com', username: 'lazyboy-helper', password: randomBytes(12).toString('hex') });
  await saveLogin({
    site: 'https://mail.example.org',
    username: 'helper@example.org',
    password: randomBytes(12).toString('hex'),
  });
  const crm = await call<{ id: string }>('POST', `/api/workspaces/${workspaceId}/vault`, {
    site: 'crm.example.com',
    username: 'team@example.com',
    password: randomBytes(12).toString('hex'),
    label: '客戶管理系統',
  });
  await call('PUT', `/api/vault/${crm.id}/agents`, { agentIds: [agents[0]!.id, agents[1]!.id] });
  await call('POST', `/api/workspaces/${workspaceId}/vault`, {
    site: 'https://ads.example.net',
    username: 'ads@example.com',
    password: randomBytes(12).toString('hex'),
    totp: 'JBSWY3DPEHPK3PXP',
  });
  await tall.goto(`/agents/${agents[0]!.id}/vault`);
  await tall.getByTestId('vault-shared-list').getByTestId('vault-row').waitFor();
  await tall.waitForTimeout(300);
  await tall.screenshot({ path: path.join(OUT, 'vault.png') });
  await tall.goto('/settings/vault');
  await tall.getByTestId('vault-grants-summary').first().click();
  await tall.waitForTimeout(300);
  await tall.screenshot({ path: path.join(OUT, 'vault-shared.png') });
  const vaultPhone = await (await context({ width: 390, height: 844 }, true)).newPage();
  await vaultPhone.goto(`/agents/${agents[0]!.id}/vault`);
  await vaultPhone.getByTestId('vault-show-code').first().click();
  await vaultPhone.getByTestId('vault-code').waitFor();
  await vaultPhone.waitForTimeout(300);
  await vaultPhone.screenshot({ path: path.join(OUT, 'vault-code.png') });
  await vaultPhone.getByTestId('vault-code-close').click();
  await vaultPhone.getByTestId('vault-add').click();
  await vaultPhone.getByTestId('vault-site').fill('https://shop.example.com');
  await vaultPhone.getByTestId('vault-username').fill('helper');
  await vaultPhone.getByTestId('vault-password').fill(randomBytes(8).toString('hex'));
  await vaultPhone.waitForTimeout(300);
  await vaultPhone.screenshot({ path: path.join(OUT, 'vault-add.png') });

  const invited = await (await context({ width: 390, height: 844 }, false)).newPage();
  await invited.goto(link);
  await invited.getByTestId('invitation-signup').waitFor();
  await invited.waitForTimeout(300);
  await invited.screenshot({ path: path.join(OUT, 'invite.png') });

  await phone.evaluate((id) => window.localStorage.setItem('lazyboy_workspace', id), lab.id);
  await phone.goto(`/agents/${newcomer.id}`);
  await phone.getByTestId('model-missing').waitFor();
  await phone.waitForTimeout(300);
  await phone.screenshot({ path: path.join(OUT, 'model-missing.png') });
  console.log(`screenshots written to ${path.relative(repoRoot, OUT)}/`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await browser?.close().catch(() => undefined);
  await stack?.stop();
}
process.exit(process.exitCode ?? 0);
