// Takes the screenshots in docs/screenshots/ of the main screens, from the real product (Postgres,
// Redis, the API and the web server as processes, a worker desktop; the model scripted). Not a
// benchmark: it lives here for the same stack start-up. Run with `npm run docs:screenshots`.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { ensureDatabase, migrateDatabase, repoRoot, startScratchServices, type ManagedProcess } from '@lazyboy/localstack';
import { ScriptedModelServer, type ReceivedRequest, type Turn } from '@lazyboy/model';
import { signUp } from '../apps/api/src/testing/test-users.js';
import { startApi, startWeb } from './stack-processes.js';

const OUT = path.join(repoRoot, 'docs/screenshots');
const ADMIN_EMAIL = 'admin@lazyboy.local';
const ADMIN_PASSWORD = randomBytes(24).toString('hex');

function script(request: ReceivedRequest): Turn {
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

const stop: (() => Promise<unknown>)[] = [];
const servers: ManagedProcess[] = [];
try {
  mkdirSync(OUT, { recursive: true });
  const services = await startScratchServices('lazyboy-screenshots-');
  stop.push(() => services.stop());
  await ensureDatabase(services.postgres.url('postgres'), 'lazyboy_screens');
  const databaseUrl = services.postgres.url('lazyboy_screens');
  await migrateDatabase(databaseUrl);
  const model = await ScriptedModelServer.start(script);
  stop.unshift(() => model.close());
  const homes = path.join(services.root, 'homes');
  mkdirSync(homes);
  const api = await startApi(
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL: services.redis.url,
      LAZYBOY_VAULT_KEY: randomBytes(24).toString('hex'),
      LAZYBOY_APP_TOKEN: ADMIN_PASSWORD,
      LAZYBOY_ADMIN_EMAIL: ADMIN_EMAIL,
      LAZYBOY_LOG_LEVEL: 'warn',
      LAZYBOY_HOMES_DIR: homes,
      LAZYBOY_MODEL_PROVIDER: 'openai-chat',
      LAZYBOY_MODEL_BASE_URL: model.url,
      LAZYBOY_MODEL: model.model,
      OPENAI_API_KEY: 'x',
    },
    path.join(services.root, 'api.log'),
  );
  servers.push(api.process);
  const web = await startWeb(api.url, path.join(services.root, 'web.log'));
  servers.push(web.process);
  stop.unshift(() => Promise.all(servers.map((s) => s.stop())));

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
  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const res = await fetch(new URL(route, api.url), {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  const agents = [];
  for (const [name, seed] of [
    ['小助手', 'helper'],
    ['研究員', 'research'],
    ['Ada', 'ada'],
  ] as const)
    agents.push(await call<{ id: string }>('POST', `/api/workspaces/${workspaceId}/bots`, { name, avatarSeed: seed }));
  await signUp(api.url, { displayName: '小美' });
  const session = await call<{ id: string }>('POST', `/api/bots/${agents[0]!.id}/sessions`, { title: '會議摘要' });
  const posted = await call<{ run: { id: string } }>('POST', `/api/sessions/${session.id}/messages`, {
    text: '幫我整理這週的會議紀錄，列出決議和待辦。',
    clientNonce: `screens-${randomBytes(6).toString('hex')}`,
  });
  for (let i = 0; i < 100; i++) {
    const run = await call<{ status: string }>('GET', `/api/runs/${posted.run.id}`);
    if (run.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await call('POST', `/api/bots/${agents[0]!.id}/computer/boot`);

  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', chromiumSandbox: process.getuid?.() !== 0 });
  stop.unshift(() => browser.close());
  const context = async (viewport: { width: number; height: number }, signedIn: boolean): Promise<BrowserContext> => {
    const ctx = await browser.newContext({ baseURL: web.url, viewport, locale: 'zh-TW', deviceScaleFactor: 1 });
    if (signedIn) {
      const [name, ...value] = cookie.split('=');
      await ctx.addCookies([{ name: name!, value: value.join('='), url: web.url }]);
    }
    return ctx;
  };
  const desktop = { width: 1440, height: 900 };

  const signedOut = await (await context(desktop, false)).newPage();
  await signedOut.goto('/login');
  await signedOut.getByTestId('login-form').waitFor();
  await signedOut.screenshot({ path: path.join(OUT, 'login.png') });

  const page = await (await context(desktop, true)).newPage();
  await page.goto(`/agents/${agents[0]!.id}?session=${session.id}`);
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
  await phone.goto(`/agents/${agents[0]!.id}?session=${session.id}`);
  await phone.locator('[data-testid="message"][data-role="assistant"]').last().waitFor();
  await phone.waitForTimeout(500);
  await phone.screenshot({ path: path.join(OUT, 'phone.png') });
  console.log(`screenshots written to ${path.relative(repoRoot, OUT)}/`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  for (const step of stop) await step().catch((error: unknown) => console.error(`cleanup: ${(error as Error).message}`));
}
process.exit(process.exitCode ?? 0);
