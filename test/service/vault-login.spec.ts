import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import pg from 'pg';
import type { RunView, VaultAccountView } from '@lazyboy/contracts';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { captureOutput, logEverything } from '../../apps/api/src/testing/test-logs.js';
import { startTestSite, type TestSite } from '../../libs/desktop/src/testing/test-site.js';
import { lastPersonText, lastToolText, type TestUser } from '../support/index.js';
import { FINAL, ServiceHarness } from './service-harness.js';

// The vault end to end: an agent, driven by the scripted model through the real API, worker and Chromium,
// lists its saved logins, logs in on a fixture site with use_saved_login (username and password, then the
// TOTP step the site checks by RFC 6238), and is refused on a page of another site and on a page with no
// form. Then the canary: the password, the TOTP secret and every code of the test's time are searched
// for in every request the model server received, every table of the database, the API's log output
// and the computer's log files — no hit, while the same search finds a copy planted in each place.

const PASSWORD = `Canary-pw-${Math.random().toString(36).slice(2)}-Zx9`;
const TOTP_SECRET = new Secret({ size: 20 }).base32;
const totp = new TOTP({ secret: Secret.fromBase32(TOTP_SECRET) });
const USERNAME = 'ada@example.com';

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });

/** The fixture bank: a login form, a 2FA form checking the codes, a home that (badly) prints the password. */
function bankSite(): { handler: http.RequestListener; logins: () => string[] } {
  const logins: string[] = [];
  const sessions = new Map<string, 'password' | 'verified'>();
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
  const handler: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://bank');
    const session = /sid=(\w+)/.exec(req.headers.cookie ?? '')?.[1];
    const html = (status: number, title: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(page(title, body));
    };
    const form = (chunks: Buffer[]) => new URLSearchParams(Buffer.concat(chunks).toString());
    if (url.pathname === '/login' && req.method === 'GET') {
      return html(
        200,
        'Bank sign-in',
        `<h1>Sign in</h1><form method="post" action="/login">
        <label>Email <input name="email" type="email" autocomplete="username"></label>
        <label>Password <input name="pw" type="password" autocomplete="current-password"></label>
        <button type="submit">Sign in</button></form>`,
      );
    }
    if ((url.pathname === '/login' || url.pathname === '/2fa') && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const fields = form(chunks);
        if (url.pathname === '/login') {
          logins.push(`password:${fields.get('email')}`);
          if (fields.get('email') !== USERNAME || fields.get('pw') !== PASSWORD) {
            return html(200, 'Bank sign-in', '<p role="alert">Wrong email or password</p>');
          }
          const sid = Math.random().toString(36).slice(2);
          sessions.set(sid, 'password');
          return html(303, 'Redirect', '', { location: '/2fa', 'set-cookie': `sid=${sid}; Path=/; HttpOnly` });
        }
        const ok =
          session !== undefined &&
          sessions.get(session) === 'password' &&
          totp.validate({ token: fields.get('code') ?? '', window: 1 }) !== null;
        logins.push(`totp:${ok}`);
        if (!ok) return html(200, 'Two-step', '<p role="alert">That code is not right</p>');
        sessions.set(session, 'verified');
        return html(303, 'Redirect', '', { location: '/home' });
      });
      return;
    }
    if (url.pathname === '/2fa') {
      return html(
        200,
        'Two-step',
        `<h1>Enter your code</h1><form method="post" action="/2fa">
        <label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6"></label>
        <button type="submit">Verify</button></form>`,
      );
    }
    if (url.pathname === '/home') {
      if (!session || sessions.get(session) !== 'verified') return html(403, 'No', '<p>Not signed in</p>');
      // A careless site echoing the password: the model must still never read it.
      return html(200, 'Bank home', `<h1>Welcome, ${USERNAME}</h1><p>Your password is ${PASSWORD}.</p>`, {
        'cache-control': 'no-store',
      });
    }
    if (url.pathname === '/plain') return html(200, 'News', '<h1>Today</h1><p>Nothing to sign in to here.</p>');
    return html(404, 'Not found', '<p>not found</p>');
  };
  return { handler, logins: () => [...logins] };
}

/** Every text that must never leave the vault: the password, the TOTP secret, the codes of the test's time. */
function canaries(fromMs: number, toMs: number): string[] {
  const codes = new Set<string>();
  for (let t = fromMs - 30_000; t <= toMs + 30_000; t += 10_000) codes.add(totp.generate({ timestamp: t }));
  return [PASSWORD, TOTP_SECRET, ...codes];
}

function hits(text: string, secrets: string[]): string[] {
  return secrets.filter((secret) => text.includes(secret));
}

describe('saved logins, end to end', () => {
  const harness = new ServiceHarness();
  const logsDir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-vault-logs-'));
  let site: TestSite;
  let bank: ReturnType<typeof bankSite>;
  let user: TestUser;
  let chatId = '';
  let agentId = '';
  let accountId = '';
  let otherAccountId = '';
  let output: { text(): string };
  const startedAt = Date.now();

  function answer(request: ReceivedRequest): Turn {
    const asked = lastPersonText(request);
    const tool = lastToolText(request);
    const steps = request.messages.filter((m) => m.role === 'tool').length;
    if (asked.startsWith('Log in to the bank')) {
      const script = [
        call('list_accounts', {}),
        call('browser', { action: 'navigate', url: `${site.url}login` }),
        call('use_saved_login', { account: accountId }),
        call('use_saved_login', { account: accountId, step: 'totp' }),
        call('browser', { action: 'observe' }),
      ];
      const since = toolResultsSince(request, 'Log in to the bank');
      if (since < script.length) return { toolCalls: [script[since]!] };
      return { toolCalls: [call('report_done', { summary: `Done: ${tool.slice(0, 300)}` })] };
    }
    if (asked.startsWith('Use the bank login on the news page')) {
      const since = toolResultsSince(request, 'Use the bank login');
      if (since === 0) return { toolCalls: [call('browser', { action: 'navigate', url: `${site.url}plain` })] };
      if (since === 1) return { toolCalls: [call('use_saved_login', { account: accountId })] };
      return { toolCalls: [call('report_done', { summary: `Refused: ${tool}` })] };
    }
    if (asked.startsWith('Use the other account here')) {
      const since = toolResultsSince(request, 'Use the other account');
      if (since === 0) return { toolCalls: [call('use_saved_login', { account: otherAccountId })] };
      return { toolCalls: [call('report_done', { summary: `Refused: ${tool}` })] };
    }
    if (asked.startsWith('Open the bank home again')) {
      const since = toolResultsSince(request, 'Open the bank home again');
      if (since === 0) return { toolCalls: [call('browser', { action: 'navigate', url: `${site.url}home` })] };
      return { toolCalls: [call('report_done', { summary: `Home: ${tool.slice(0, 300)}` })] };
    }
    return { text: `no plan for "${asked}" (${steps})` };
  }

  beforeAll(async () => {
    bank = bankSite();
    site = await startTestSite(bank.handler);
    await harness.start((request) => answer(request), { LAZYBOY_LOGS_DIR: logsDir });
    logEverything(harness.app.app);
    output = captureOutput();
    const made = await harness.userWithAgent('Vera');
    ({ user, chatId, agentId } = made);
    const origin = new URL(site.url).origin;
    accountId = (
      await harness.call<VaultAccountView>(user, 'POST', `/api/agents/${agentId}/vault`, {
        site: origin,
        username: USERNAME,
        password: PASSWORD,
        totp: `otpauth://totp/Bank:ada?secret=${TOTP_SECRET}&issuer=Bank`,
      })
    ).id;
    otherAccountId = (
      await harness.call<VaultAccountView>(user, 'POST', `/api/agents/${agentId}/vault`, {
        site: 'https://bank.example.com',
        username: 'other',
        password: 'other-password-123',
      })
    ).id;
  }, 120_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    await harness.stop();
    await site?.close();
    rmSync(logsDir, { recursive: true, force: true });
  }, 120_000);

  async function ask(text: string): Promise<RunView> {
    const sent = await harness.send(user, chatId, text);
    return harness.runUntil(user, sent.run.id, FINAL, 180_000);
  }

  it('lists the accounts, logs in with the password, passes the TOTP step and reports success', async () => {
    const run = await ask('Log in to the bank');
    expect(run.status).toBe('completed');
    expect(run.resultText).toContain('Welcome, ada@example.com');
    expect(bank.logins()).toEqual([`password:${USERNAME}`, 'totp:true']);
    // The model read the list, never a password: ids, sites and usernames.
    const list = harness.model.requests
      .flatMap((r) => r.messages)
      .find((m) => m.role === 'tool' && JSON.stringify(m.content).includes('Saved logins'));
    expect(JSON.stringify(list)).toContain(accountId);
    expect(JSON.stringify(list)).toContain('(2FA code stored)');
    // The page printed the password; the model read a placeholder.
    expect(run.resultText).not.toContain(PASSWORD);
    const observed = harness.model.requests
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => JSON.stringify(m.content));
    expect(observed.some((text) => text.includes('[saved secret]'))).toBe(true);

    const audit = await rows(`SELECT metadata::text AS row FROM "AuditLog" WHERE action = 'vault.account_use' ORDER BY id`);
    expect(audit.map((row) => JSON.parse(row) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ step: 'password', outcome: 'submitted', runId: run.id }),
      expect.objectContaining({ step: 'totp', outcome: 'submitted', runId: run.id }),
    ]);
  }, 240_000);

  it('refuses the fill on a page without a login form and on a page of another site, saying why', async () => {
    const noForm = await ask('Use the bank login on the news page');
    expect(noForm.status).toBe('completed');
    expect(noForm.resultText).toContain('there is no login form on the current page');
    const otherSite = await ask('Use the other account here');
    expect(otherSite.resultText).toContain('not on https://bank.example.com');
    expect(otherSite.resultText).toContain('never fill a login on another site');
    // Nothing more reached the bank: neither refusal typed anything anywhere.
    expect(bank.logins()).toEqual([`password:${USERNAME}`, 'totp:true']);
  }, 240_000);

  it('is still signed in after its computer is stopped and started again (its cookies kept in its profile)', async () => {
    const stopped = await harness.call<{ computer: { state: string } | null }>(
      user,
      'POST',
      `/api/agents/${agentId}/computer/stop`,
      {},
    );
    expect(stopped.computer?.state).toBe('stopped');
    const again = await ask('Open the bank home again');
    expect(again.status).toBe('completed');
    // The session cookie came back with the profile: no sign-in happened, and the home answered.
    expect(again.resultText).toContain('Welcome, ada@example.com');
    expect(bank.logins()).toEqual([`password:${USERNAME}`, 'totp:true']);
  }, 240_000);

  it('never lets the password, the TOTP secret or a code reach the model, the database, a log or a file', async () => {
    const secrets = canaries(startedAt, Date.now());
    const places = await everyPlace();
    const found = Object.entries(places).flatMap(([place, text]) =>
      // The homes hold Chromium's binary files, where six digits turn up by chance: long secrets only there.
      hits(text, place === 'homes' ? [PASSWORD, TOTP_SECRET] : secrets).map((secret) => `${place}: ${secret.slice(0, 6)}…`),
    );
    expect(found).toEqual([]);

    // The same search finds a planted copy in each kind of place: it can fail.
    const db = new pg.Client({ connectionString: harness.database.url });
    await db.connect();
    try {
      await db.query(
        `UPDATE "Message" SET content = jsonb_build_object('text', $1::text) WHERE id = (SELECT id FROM "Message" LIMIT 1)`,
        [PASSWORD],
      );
    } finally {
      await db.end();
    }
    // One code, planted and looked for: a second generate() may fall in the next 30 s step.
    const code = totp.generate();
    execFileSync('bash', ['-c', `printf '%s' "$1" > "$2"`, '_', code, path.join(logsDir, 'planted.log')]);
    process.stdout.write(`planted ${TOTP_SECRET}\n`);
    harness.model.requests.push({ ...harness.model.requests[0]!, body: { planted: PASSWORD } });
    const planted = await everyPlace();
    expect(hits(planted.database, [PASSWORD])).toEqual([PASSWORD]);
    expect(hits(planted.files, [code])).toEqual([code]);
    expect(hits(planted.apiOutput, [TOTP_SECRET])).toEqual([TOTP_SECRET]);
    expect(hits(planted.modelRequests, [PASSWORD])).toEqual([PASSWORD]);
  }, 120_000);

  /** The places a secret could have gone, as text. */
  async function everyPlace(): Promise<Record<'modelRequests' | 'database' | 'apiOutput' | 'files' | 'homes', string>> {
    const tables = await rows(
      `SELECT quote_ident(table_name) AS row FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    const database: string[] = [];
    for (const table of tables) database.push(...(await rows(`SELECT row_to_json(t)::text AS row FROM ${table} t`)));
    const strings = (dir: string) =>
      execFileSync('bash', ['-c', 'grep -raho "[[:print:]]\\{4,\\}" "$1" 2>/dev/null || true', '_', dir], {
        encoding: 'utf8',
        maxBuffer: 512 * 1024 * 1024,
      });
    return {
      modelRequests: harness.model.requests.map((r) => JSON.stringify(r.body)).join('\n'),
      database: database.join('\n'),
      apiOutput: output.text(),
      files: strings(logsDir),
      homes: strings(harness.homes),
    };
  }

  async function rows(sql: string): Promise<string[]> {
    const db = new pg.Client({ connectionString: harness.database.url });
    await db.connect();
    try {
      return (await db.query<{ row: string }>(sql)).rows.map((r) => r.row);
    } finally {
      await db.end();
    }
  }
});

/** Tool results since the person's message that starts with `start`. */
function toolResultsSince(request: ReceivedRequest, start: string): number {
  let count = 0;
  for (const m of [...request.messages].reverse()) {
    if (m.role === 'user' && typeof m.content === 'string' && m.content.startsWith(start)) break;
    if (m.role === 'tool') count++;
  }
  return count;
}
