import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { NumberedPage, renderObservation } from '../browser/numbered-page.js';
import { fillLogin, type LoginFillOutcome } from './login-form.js';
import { SECRET_MARK_ATTRIBUTE, secretOnScreen } from './secret-marks.js';

const USERNAME = 'ada@bank.test';
const PASSWORD = 'correct horse battery staple!';
const CODE = '492813';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

const LOGIN_FORM = `<h1>Bank login</h1>
  <form method="post" action="/login">
    <label>Username <input name="user" autocomplete="username"></label>
    <label>Password <input name="pass" type="password"></label>
    <button type="button">Show password</button>
    <button>Sign in</button>
  </form>
  <form action="/search"><input type="search" name="q" placeholder="Search the site"><button>Search</button></form>`;

/** Field names a site would choose, and labels in Chinese: no autocomplete hints at all. */
const UNHINTED_FORM = `<form method="post" action="/login">
    <input name="honeypot_email" type="email" style="position:absolute;left:-9999px" tabindex="-1">
    <div><span>帳號</span><input name="acct"></div>
    <div><span>密碼</span><input name="pass" type="password"></div>
    <input type="submit" value="登入">
  </form>`;

const PAGES: Record<string, string> = {
  '/login': page('Sign in', LOGIN_FORM),
  '/unhinted': page('登入', UNHINTED_FORM),
  '/home': page('Home', '<h1>Welcome back</h1><p>Your accounts</p>'),
  '/get-login': page(
    'Old login',
    `<form method="get" action="/home"><input name="user" placeholder="Email"><input name="pass" type="password"><button>Log in</button></form>`,
  ),
  '/two/start': page(
    'Sign in: step 1',
    `<form method="post" action="/two/start"><label>Email <input type="email" name="email"></label><button>Next</button></form>`,
  ),
  '/two/password': page(
    'Sign in: step 2',
    `<form method="post" action="/two/password"><input type="hidden" name="email" autocomplete="username">
      <label>Password <input type="password" name="password" autocomplete="current-password"></label>
      <a href="/forgot">Forgot password?</a><button>Sign in</button></form>`,
  ),
  '/spa': page(
    'App sign-in',
    `<div id="app"><div id="step1"><input id="identifier" placeholder="Email or phone"><button id="next">Next</button></div>
      <div id="step2" style="display:none"><input id="secret" type="password" aria-label="Enter your password"><button id="go">Sign in</button></div>
      <div id="msg" role="alert"></div></div>
      <script>
        let who = '';
        next.onclick = () => { who = identifier.value; setTimeout(() => { step1.style.display = 'none'; step2.style.display = ''; }, 300); };
        go.onclick = async () => {
          const res = await fetch('/spa/session', { method: 'POST', body: JSON.stringify({ username: who, password: secret.value }) });
          if (res.ok) { history.pushState({}, '', '/spa/inbox'); document.title = 'Inbox'; app.innerHTML = '<h1>Inbox</h1>'; }
          else msg.textContent = 'That password is not right';
        };
      </script>`,
  ),
  '/totp': page(
    'Two-step verification',
    `<form method="post" action="/totp"><label>Authentication code
      <input name="otp" autocomplete="one-time-code" inputmode="numeric" maxlength="6"></label><button>Verify</button></form>`,
  ),
  '/totp-boxes': page(
    'Enter the code',
    `<form method="post" action="/totp" id="f"><input type="hidden" name="otp" id="otp"><div class="row">
      ${Array.from({ length: 6 }, () => '<input maxlength="1" inputmode="numeric" class="box">').join('')}</div>
      <button>Continue</button></form>
      <script>
        const boxes = [...document.querySelectorAll('.box')];
        boxes.forEach((b, i) => b.addEventListener('input', () => { if (b.value && boxes[i + 1]) boxes[i + 1].focus(); }));
        f.addEventListener('submit', () => { otp.value = boxes.map((b) => b.value).join(''); });
      </script>`,
  ),
  '/totp-script': page(
    'Verify it is you',
    `<form id="f"><label>Verification code <input id="code" name="code" type="text"></label><button>Verify</button></form>
      <p id="msg" class="form-error"></p>
      <script>
        f.addEventListener('submit', async (event) => {
          event.preventDefault();
          await fetch('/totp-check', { method: 'POST', body: code.value });
          msg.textContent = 'That code did not work';
        });
      </script>`,
  ),
  '/about': page(
    'About us',
    '<h1>About</h1><p>We are a bank.</p><form action="/search"><input name="q"><button>Search</button></form>',
  ),
  '/newsletter': page(
    'News',
    '<form method="post" action="/subscribe"><input type="email" name="email" placeholder="Your email"><button>Subscribe</button></form>',
  ),
  '/signup': page(
    'Create your account',
    `<form method="post" action="/signup"><input type="email" name="email" autocomplete="email">
      <input type="password" name="pw" autocomplete="new-password"><input type="password" name="pw2" autocomplete="new-password">
      <button>Create account</button></form>`,
  ),
};

interface Received {
  host: string;
  path: string;
  body: string;
}

describe('fillLogin (real Chromium, fixture sites)', () => {
  let server: http.Server;
  let port: number;
  let browser: Browser;
  let tab: Page;
  const received: Received[] = [];
  const at = (host: string, path: string) => `http://${host}:${port}${path}`;
  const bank = () => `http://bank.test:${port}`;
  const password = (site = bank()) => ({ step: 'password' as const, site, username: USERNAME, password: PASSWORD });
  const posted = (path: string) => received.filter((r) => r.path === path);
  const leaksNothing = (outcome: LoginFillOutcome) => {
    const json = JSON.stringify(outcome);
    for (const value of [USERNAME, PASSWORD, encodeURIComponent(PASSWORD), CODE]) expect(json).not.toContain(value);
  };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const body = Buffer.concat(chunks).toString('utf8');
        const host = (req.headers.host ?? '').split(':')[0] ?? '';
        if (req.method === 'POST') received.push({ host, path: url.pathname, body });
        const form = new URLSearchParams(body);
        const redirect = (to: string) => (res.writeHead(302, { location: to }), res.end());
        const html = (status: number, text: string) => {
          res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
          res.end(text);
        };
        if (req.method === 'POST' && url.pathname === '/login') {
          if (form.get('user') === USERNAME && form.get('pass') === PASSWORD) return redirect('/home');
          // Echoing the username, as careless sites do: the answer names it only as a placeholder.
          const who = (form.get('user') ?? '').replace(/[<&]/g, '');
          return html(200, page('Sign in', `<div role="alert">Wrong password for ${who}</div>${LOGIN_FORM}`));
        }
        if (req.method === 'POST' && url.pathname === '/two/start') return redirect('/two/password');
        if (req.method === 'POST' && url.pathname === '/two/password') {
          return form.get('password') === PASSWORD ? redirect('/home') : html(200, page('Sign in: step 2', 'Wrong'));
        }
        if (req.method === 'POST' && url.pathname === '/spa/session') {
          const login = JSON.parse(body) as { username: string; password: string };
          res.writeHead(login.username === USERNAME && login.password === PASSWORD ? 204 : 401);
          return res.end();
        }
        if (req.method === 'POST' && url.pathname === '/totp') {
          if (form.get('otp') === CODE) return redirect('/home');
          return html(200, page('Two-step verification', '<p class="error">Invalid code</p>'));
        }
        if (req.method === 'POST') return html(200, page('Thanks', 'ok'));
        if (url.pathname === '/embed') {
          // The bank's page framing a form of another site: the frame must never receive the login.
          return html(
            200,
            page('Bank', `<h1>Bank</h1><iframe src="${at('evil.test', '/login')}" width="600" height="400"></iframe>`),
          );
        }
        if (url.pathname === '/framed-bank') {
          return html(
            200,
            page('Bank (framed)', `<iframe src="${at('bank.test', '/login')}" width="600" height="400"></iframe>`),
          );
        }
        const known = PAGES[url.pathname];
        html(known ? 200 : 404, known ?? 'not found');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      chromiumSandbox: process.getuid?.() !== 0,
      args: [
        // bank.test, bank.test.evil.test and evil.test all reach the fixture server: sites by name, one server.
        '--host-resolver-rules=MAP *.test 127.0.0.1',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  beforeEach(async () => {
    received.length = 0;
    tab = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  });

  afterEach(async () => {
    await tab.close();
  });

  it('fills a plain login form, submits it and reports the page it led to', async () => {
    await tab.goto(at('bank.test', '/login'));
    const outcome = await fillLogin(tab, password());
    expect(outcome).toEqual({
      outcome: 'submitted',
      url: at('bank.test', '/home'),
      title: 'Home',
      pageSite: 'bank.test',
      filled: ['username', 'password'],
      pages: 1,
      pageError: null,
      asksForCode: false,
    });
    expect(posted('/login').map((r) => new URLSearchParams(r.body).get('user'))).toEqual([USERNAME]);
    expect(new URLSearchParams(posted('/login')[0]!.body).get('pass')).toBe(PASSWORD);
    leaksNothing(outcome);
  });

  it("reports the page's error after a wrong password", async () => {
    await tab.goto(at('bank.test', '/login'));
    const outcome = await fillLogin(tab, { ...password(), password: 'not the password' });
    expect(outcome).toMatchObject({
      outcome: 'submitted',
      url: at('bank.test', '/login'),
      pageError: 'Wrong password for [saved username]',
    });
  });

  it('finds unhinted fields by their labels in Chinese and skips a honeypot', async () => {
    await tab.goto(at('login.bank.test', '/unhinted'));
    const outcome = await fillLogin(tab, password());
    expect(outcome).toMatchObject({ outcome: 'submitted', filled: ['username', 'password'] });
    const form = new URLSearchParams(posted('/login')[0]!.body);
    expect([form.get('acct'), form.get('pass'), form.get('honeypot_email')]).toEqual([USERNAME, PASSWORD, '']);
  });

  it('keeps the values out of the answer when a GET form puts them in the address', async () => {
    await tab.goto(at('bank.test', '/get-login'));
    const outcome = await fillLogin(tab, password());
    expect(new URL(tab.url()).searchParams.get('pass')).toBe(PASSWORD);
    expect(outcome.url).toBe(at('bank.test', '/home?user=[saved username]&pass=[saved secret]'));
    leaksNothing(outcome);
  });

  it('fills a two-page login: the username, then the password on the next page', async () => {
    await tab.goto(at('bank.test', '/two/start'));
    const outcome = await fillLogin(tab, password());
    expect(outcome).toMatchObject({ outcome: 'submitted', title: 'Home', filled: ['username', 'password'], pages: 2 });
    expect(new URLSearchParams(posted('/two/start')[0]!.body).get('email')).toBe(USERNAME);
    expect(new URLSearchParams(posted('/two/password')[0]!.body).get('password')).toBe(PASSWORD);
    leaksNothing(outcome);
  });

  it('fills a script-driven login whose password field appears after "Next"', async () => {
    await tab.goto(at('bank.test', '/spa'));
    const outcome = await fillLogin(tab, password());
    expect(outcome).toMatchObject({
      outcome: 'submitted',
      url: at('bank.test', '/spa/inbox'),
      title: 'Inbox',
      filled: ['username', 'password'],
      pages: 2,
      pageError: null,
    });
    expect(JSON.parse(posted('/spa/session')[0]!.body)).toEqual({ username: USERNAME, password: PASSWORD });
  });

  it('fills a one-time code, in one field or in a row of six boxes', async () => {
    await tab.goto(at('bank.test', '/totp'));
    const single = await fillLogin(tab, { step: 'totp', site: bank(), code: CODE });
    expect(single).toMatchObject({ outcome: 'submitted', title: 'Home', filled: ['code'], pages: 1 });
    leaksNothing(single);

    await tab.goto(at('bank.test', '/totp-boxes'));
    const boxes = await fillLogin(tab, { step: 'totp', site: bank(), code: CODE });
    expect(boxes).toMatchObject({ outcome: 'submitted', title: 'Home', filled: ['code'] });
    expect(posted('/totp').map((r) => new URLSearchParams(r.body).get('otp'))).toEqual([CODE, CODE]);
  });

  it("reports a wrong code's error, and refuses a code where there is no field for one", async () => {
    await tab.goto(at('bank.test', '/totp'));
    expect(await fillLogin(tab, { step: 'totp', site: bank(), code: '000000' })).toMatchObject({
      pageError: 'Invalid code',
      asksForCode: false,
    });
    await tab.goto(at('bank.test', '/about'));
    expect(await fillLogin(tab, { step: 'totp', site: bank(), code: CODE })).toMatchObject({
      outcome: 'refused',
      refusal: 'no_code_field',
      filled: [],
    });
  });

  it('holds a code left on screen back from screenshots and observations while it is visible', async () => {
    await tab.goto(at('bank.test', '/totp-script'));
    const outcome = await fillLogin(tab, { step: 'totp', site: bank(), code: CODE });
    expect(outcome).toMatchObject({ outcome: 'submitted', pageError: 'That code did not work', asksForCode: true });
    expect(await tab.inputValue('#code')).toBe(CODE);
    expect(await tab.getAttribute('#code', SECRET_MARK_ATTRIBUTE)).toBe('');
    expect(await secretOnScreen(tab)).toBe(true);

    const observation = renderObservation(await new NumberedPage(tab).observe());
    expect(observation).toContain('textbox "Verification code" value="•••"');
    expect(observation).not.toContain(CODE);

    await tab.fill('#code', '');
    expect(await secretOnScreen(tab)).toBe(false);
  });

  it('refuses pages without a login form: no form, a newsletter, a sign-up form', async () => {
    for (const path of ['/about', '/newsletter', '/signup']) {
      await tab.goto(at('bank.test', path));
      const outcome = await fillLogin(tab, password());
      expect([path, outcome.outcome, outcome.refusal, outcome.filled]).toEqual([path, 'refused', 'no_login_form', []]);
    }
    expect(received).toEqual([]);
  });

  it('refuses a look-alike site without touching its page', async () => {
    await tab.goto(at('bank.test.evil.test', '/login'));
    const outcome = await fillLogin(tab, password());
    expect(outcome).toEqual({
      outcome: 'refused',
      refusal: 'wrong_site',
      url: at('bank.test.evil.test', '/login'),
      title: 'Sign in',
      pageSite: 'evil.test',
      filled: [],
      pages: 0,
      pageError: null,
      asksForCode: false,
    });
    expect(await tab.inputValue('input[name=user]')).toBe('');
    expect(received).toEqual([]);
  });

  it("never types into another site's frame, whether the bank frames it or it frames the bank", async () => {
    await tab.goto(at('bank.test', '/embed'));
    const framed = await fillLogin(tab, password());
    expect(framed).toMatchObject({ outcome: 'refused', refusal: 'no_login_form' });
    expect(await tab.frames()[1]!.inputValue('input[name=pass]')).toBe('');

    await tab.goto(at('evil.test', '/framed-bank'));
    expect(await fillLogin(tab, password())).toMatchObject({ outcome: 'refused', refusal: 'wrong_site', pageSite: 'evil.test' });
    expect(received).toEqual([]);
  });

  it('never fills an https account into an http page', async () => {
    await tab.goto(at('bank.test', '/login'));
    expect(await fillLogin(tab, password('https://bank.test'))).toMatchObject({ outcome: 'refused', refusal: 'wrong_site' });
  });
});
