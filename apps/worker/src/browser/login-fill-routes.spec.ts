import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserActionResponse, LoginFillResponse, WorkerErrorBody } from '@lazyboy/contracts';
import { startTestSite, type TestSite } from '../../../../libs/desktop/src/testing/test-site.js';
import { WorkerFixture, type Answer } from '../testing/worker-fixture.js';
import { SCREENSHOT_WITHHELD_NOTE } from './screenshots.js';

const USERNAME = 'grace@bank.example';
const PASSWORD = 'Tr0ub4dor&3-saved';
const CODE = '731905';

const LOGIN = `<!doctype html><title>Sign in</title><form method="post" action="/login">
  <label>Email <input type="email" name="email" autocomplete="username"></label>
  <label>Password <input type="password" name="password" autocomplete="current-password"></label>
  <button>Sign in</button></form>`;
const HOME = '<!doctype html><title>Home</title><h1>Welcome back</h1>';
/** The code stays in its text field after a failed check: what a screenshot must not show. */
const CODE_PAGE = `<!doctype html><title>Verify</title>
  <form id="f"><label>Verification code <input id="code" name="code"></label><button>Verify</button></form>
  <p id="msg" role="alert"></p>
  <script>
    f.addEventListener('submit', async (event) => {
      event.preventDefault();
      await fetch('/code', { method: 'POST', body: code.value });
      msg.textContent = 'That code did not work';
    });
  </script>`;

describe('POST /vault/fill (real Xvfb, Chromium over CDP)', () => {
  const worker = new WorkerFixture('vault-fill-spec', 1);
  let site: TestSite;
  let origin: string;
  const posts: { path: string; body: string }[] = [];
  const fill = (body: Record<string, unknown>) => worker.post('/vault/fill', { slot: 0, ...body });
  const passwordFill = (fence: number) => fill({ fence, step: 'password', site: origin, username: USERNAME, password: PASSWORD });
  const act = (action: string, body: Record<string, unknown>) =>
    worker.post(`/browser/${action}`, { slot: 0, ...body }) as Promise<Answer<BrowserActionResponse>>;

  beforeAll(async () => {
    site = await startTestSite((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (req.method === 'POST') posts.push({ path, body: Buffer.concat(chunks).toString('utf8') });
        if (req.method === 'POST' && path === '/login') {
          res.writeHead(302, { location: '/home' });
          return res.end();
        }
        const pages: Record<string, string> = { '/login': LOGIN, '/home': HOME, '/verify': CODE_PAGE };
        res.writeHead(pages[path] ? 200 : 204, { 'content-type': 'text/html; charset=utf-8' });
        res.end(pages[path] ?? '');
      });
    });
    origin = new URL(site.url).origin;
    await worker.start();
    expect((await worker.post('/screens/ensure', { slot: 0, profileKey: 'vault-agent', fence: 1 })).status).toBe(200);
    expect((await act('navigate', { fence: 1, url: `${origin}/login` })).status).toBe(200);
  });

  afterAll(async () => {
    await worker.stop();
    await site?.close();
  });

  it('refuses a stale fence and a person holding the screen, typing nothing', async () => {
    expect((await act('observe', { fence: 2 })).status).toBe(200);
    const stale = (await passwordFill(1)) as Answer<WorkerErrorBody>;
    expect([stale.status, stale.body.error.code]).toEqual([409, 'STALE_FENCE']);

    await worker.post('/screens/control', { slot: 0, holder: 'user', fence: 1 });
    const held = (await passwordFill(2)) as Answer<WorkerErrorBody>;
    expect([held.status, held.body.error.code]).toEqual([423, 'CONTROL_HELD_BY_USER']);
    await worker.post('/screens/control', { slot: 0, holder: 'agent', fence: 2 });

    const typed = await act('eval', { fence: 2, expression: "[...document.querySelectorAll('input')].map((i) => i.value)" });
    expect(typed.body.result).toEqual({ value: ['', ''] });
    expect(posts).toEqual([]);
  });

  it('refuses a body it cannot take without repeating the password', async () => {
    const huge = 'hunter2-'.repeat(12_500);
    const refused = (await fill({
      fence: 2,
      step: 'password',
      site: origin,
      username: USERNAME,
      password: huge,
    })) as Answer<WorkerErrorBody>;
    expect([refused.status, refused.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(JSON.stringify(refused.body)).not.toContain('hunter2');
  });

  it('fills and submits the login, answering where the page went and no value', async () => {
    const filled = (await passwordFill(2)) as Answer<LoginFillResponse>;
    expect(filled).toEqual({
      status: 200,
      body: {
        slot: 0,
        outcome: 'submitted',
        url: `${origin}/home`,
        title: 'Home',
        pageSite: new URL(origin).hostname,
        filled: ['username', 'password'],
        pages: 1,
        pageError: null,
        asksForCode: false,
      },
    });
    expect(posts.map((p) => [p.path, Object.fromEntries(new URLSearchParams(p.body))])).toEqual([
      ['/login', { email: USERNAME, password: PASSWORD }],
    ]);
    expect(JSON.stringify(filled.body)).not.toContain(PASSWORD);
  });

  it('withholds screenshots while a filled code stays visible, and sends them again once it is gone', async () => {
    expect((await act('navigate', { fence: 2, url: `${origin}/verify` })).status).toBe(200);
    const filled = (await fill({ fence: 2, step: 'totp', site: origin, code: CODE })) as Answer<LoginFillResponse>;
    expect(filled.body).toMatchObject({
      outcome: 'submitted',
      filled: ['code'],
      pageError: 'That code did not work',
      asksForCode: true,
    });
    expect(posts.at(-1)).toEqual({ path: '/code', body: CODE });

    const seen = await act('observe', { fence: 2, screenshot: 'always' });
    expect(seen.body.screenshot).toBeNull();
    expect(seen.body.observation.endsWith(SCREENSHOT_WITHHELD_NOTE)).toBe(true);
    expect(seen.body.observation).toContain('textbox "Verification code" value="•••"');
    expect(JSON.stringify(seen.body)).not.toContain(CODE);

    const field = /^\[(\d+)\] textbox "Verification code"/m.exec(seen.body.observation)?.[1];
    const cleared = await act('type', { fence: 2, element: Number(field), text: '' });
    expect(cleared.body.screenshot?.mimeType).toBe('image/png');
    expect(cleared.body.observation).not.toContain(SCREENSHOT_WITHHELD_NOTE);
  });
});
