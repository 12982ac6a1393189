// Benchmark of the agent tool use_saved_login against the whole stack (Postgres, Redis, the API and the
// web server in their own processes as `lazyboy up` runs them, a real worker desktop; only the model is
// scripted). A fixture login site (served by this process; as root on a stand-in internet the computer
// reaches through its egress proxy, as it would a real site) has a username + password form whose POST
// checks the values and redirects to /home. Each of BENCH_FILLS runs opens its /login with the browser tool,
// calls use_saved_login with an account saved through the API, observes the page and reports done. It
// prints the time of each use_saved_login call — from the run's tool_call RunEvent to its tool_result
// RunEvent (both stamped by Postgres as the executor stores them) — and, for comparison, the same figure for
// the plain browser observe call of the same runs. Run with `npm run bench:vault-login` after a build.
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ChatMessage, RunEventView, RunView, VaultAccountView } from '@lazyboy/contracts';
import { repoRoot, tail } from '@lazyboy/localstack';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import type { StandInInternet } from '../libs/desktop/src/testing/stand-in-internet.js';
import { startProductStack, type ProductStack } from './stack-processes.js';
import { median, percentile } from './stats.js';

// Self-contained (no test/support, no libs/desktop test-site import) so that `tsc -b bench` builds it too.

/** The stand-in internet is outside @lazyboy/desktop's build: tsconfig.stand-in.json compiles it to bench/dist/stand-in. */
async function loadStandInInternet(): Promise<typeof StandInInternet> {
  const file = path.join(repoRoot, 'bench/dist/stand-in/testing/stand-in-internet.js');
  return ((await import(new URL(`file://${file}`).href)) as { StandInInternet: typeof StandInInternet }).StandInInternet;
}

/**
 * Serves the fixture where the computer's browser can open it, as libs/desktop's startTestSite does: as root
 * the screens are network islands reaching only public addresses through the egress proxy, so on a stand-in
 * internet; otherwise on loopback, which the screens share.
 */
async function serveFixture(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  if (process.getuid?.() === 0) {
    const internet = await (await loadStandInInternet()).start();
    const served = await internet.serve(handler, 8080);
    return {
      url: served.url,
      close: async () => {
        served.close();
        internet.stop();
      },
    };
  }
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh person (open sign-up) and a JSON caller with their session cookie. */
async function signUpPerson(apiUrl: string): Promise<{
  workspaceId: string;
  call<T>(method: string, route: string, body?: unknown): Promise<T>;
}> {
  const id = randomUUID();
  const res = await fetch(new URL('/api/auth/signup', apiUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-${id}@example.test`, password: `password-${id}`, displayName: 'Bench' }),
  });
  if (res.status !== 201) throw new Error(`sign-up answered ${res.status}: ${await res.text()}`);
  const cookie = res.headers
    .getSetCookie()
    .map((header) => header.split(';')[0]!.trim())
    .find((pair) => pair.startsWith('lazyboy_session=') && pair.length > 16);
  if (!cookie) throw new Error('sign-up set no session cookie');
  const me = (await res.json()) as { workspaces: { id: string }[] };
  return {
    workspaceId: me.workspaces[0]!.id,
    call: async <T>(method: string, route: string, body?: unknown): Promise<T> => {
      const answer = await fetch(new URL(route, apiUrl), {
        method,
        headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await answer.text();
      if (!answer.ok) throw new Error(`${method} ${route} answered ${answer.status}: ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    },
  };
}

const contentText = (content: ChatMessage['content']): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => ('text' in p ? p.text : '')).join('');
/** Providers get a tool's screenshot as a user message of its own; it is not the person speaking. */
const isPerson = (m: ChatMessage): boolean =>
  m.role === 'user' && !contentText(m.content).startsWith('Image from the result of tool call');

const FILLS = Number(process.env.BENCH_FILLS ?? 10);
const DATABASE = 'lazyboy_bench_vault';
const USERNAME = 'ada@example.com';
const PASSWORD = `Bench-pw-${randomBytes(8).toString('hex')}`;

/** The fixture: a login form, its POST checking the values, a home page for a signed-in session. */
function loginSite(): { handler: http.RequestListener; logins: () => number; failures: () => number } {
  let logins = 0;
  let failures = 0;
  const sessions = new Set<string>();
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
  const handler: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const html = (status: number, title: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
      res.end(page(title, body));
    };
    if (url.pathname === '/login' && req.method === 'GET') {
      return html(
        200,
        'Sign in',
        `<h1>Sign in</h1><form method="post" action="/login">
        <label>Email <input name="email" type="email" autocomplete="username"></label>
        <label>Password <input name="pw" type="password" autocomplete="current-password"></label>
        <button type="submit">Sign in</button></form>`,
      );
    }
    if (url.pathname === '/login' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const fields = new URLSearchParams(Buffer.concat(chunks).toString());
        if (fields.get('email') !== USERNAME || fields.get('pw') !== PASSWORD) {
          failures++;
          return html(200, 'Sign in', '<p role="alert">Wrong email or password</p>');
        }
        logins++;
        const sid = randomBytes(12).toString('hex');
        sessions.add(sid);
        return html(303, 'Redirect', '', { location: '/home', 'set-cookie': `sid=${sid}; Path=/; HttpOnly` });
      });
      return;
    }
    if (url.pathname === '/home') {
      const sid = /sid=(\w+)/.exec(req.headers.cookie ?? '')?.[1];
      if (!sid || !sessions.has(sid)) return html(403, 'No', '<p>Not signed in</p>');
      return html(200, 'Home', `<h1>Welcome, ${USERNAME}</h1>`);
    }
    return html(404, 'Not found', '<p>not found</p>');
  };
  return { handler, logins: () => logins, failures: () => failures };
}

let site: { url: string; close(): Promise<void> } | null = null;
let accountId = '';

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });

/** What the person last asked, and the tool results since: where the run is in its script. */
function progress(request: ReceivedRequest): { asked: string; toolResults: number; lastTool: string } {
  let toolResults = 0;
  let lastTool = '';
  for (const m of [...request.messages].reverse()) {
    if (isPerson(m)) return { asked: contentText(m.content), toolResults, lastTool };
    if (m.role === 'tool') {
      if (toolResults++ === 0) lastTool = contentText(m.content);
    }
  }
  return { asked: '', toolResults, lastTool };
}

function script(request: ReceivedRequest): Turn {
  const { asked, toolResults, lastTool } = progress(request);
  if (!/^Log in \d+/.test(asked) || !site) return { text: 'Hello.' };
  switch (toolResults) {
    case 0:
      return call('browser', { action: 'navigate', url: `${site.url}login` });
    case 1:
      return call('use_saved_login', { account: accountId });
    case 2:
      return call('browser', { action: 'observe' });
    default:
      return call('report_done', { summary: `Done: ${lastTool.slice(0, 300)}` });
  }
}

/** tool_call → tool_result of each tool call in a run's events, in order (one call per model turn). */
function toolTimes(events: RunEventView[]): { name: string; ms: number }[] {
  const times: { name: string; ms: number }[] = [];
  let open: { name: string; at: number } | null = null;
  for (const event of events) {
    const payload = event.payload as { name?: string };
    if (event.type === 'tool_call') open = { name: payload.name ?? '?', at: Date.parse(event.createdAt) };
    if (event.type === 'tool_result' && open && payload.name === open.name) {
      times.push({ name: open.name, ms: Date.parse(event.createdAt) - open.at });
      open = null;
    }
  }
  return times;
}

const ms = (v: number) => `${v.toFixed(0)} ms`;
let stack: ProductStack | null = null;

try {
  const fixture = loginSite();
  site = await serveFixture(fixture.handler);
  stack = await startProductStack({ prefix: 'lazyboy-bench-vault-', database: DATABASE, script });
  const { api } = stack;
  const user = await signUpPerson(api.url);
  const person = user.call;
  const agent = await person<{ id: string }>('POST', `/api/workspaces/${user.workspaceId}/agents`, { name: 'Bench' });
  const chat = await person<{ id: string }>('POST', `/api/agents/${agent.id}/chats`, { title: 'Bench' });
  accountId = (
    await person<VaultAccountView>('POST', `/api/agents/${agent.id}/vault`, {
      site: new URL(site.url).origin,
      username: USERNAME,
      password: PASSWORD,
    })
  ).id;
  await person('POST', `/api/agents/${agent.id}/computer/boot`);

  const fills: number[] = [];
  const observes: number[] = [];
  for (let n = 1; n <= FILLS; n++) {
    const sent = await person<{ run: { id: string } }>('POST', `/api/chats/${chat.id}/messages`, {
      text: `Log in ${n}`,
      clientNonce: `bench-${randomBytes(8).toString('hex')}`,
    });
    const runId = sent.run.id;
    const deadline = Date.now() + 180_000;
    let run = await person<RunView>('GET', `/api/runs/${runId}`);
    while (!['completed', 'blocked', 'failed', 'cancelled'].includes(run.status)) {
      if (Date.now() > deadline) throw new Error(`run ${n} still ${run.status} after 180 s`);
      await sleep(100);
      run = await person<RunView>('GET', `/api/runs/${runId}`);
    }
    if (run.status !== 'completed' || !run.resultText?.includes(`Welcome, ${USERNAME}`))
      throw new Error(`run ${n} ended ${run.status}: ${run.resultText ?? run.errorMessage ?? ''}`);
    // The executor stores events one write after another: wait for the last one (done).
    let events: RunEventView[] = [];
    for (let i = 0; i < 50 && !events.some((e) => e.type === 'done'); i++) {
      if (i > 0) await sleep(100);
      events = await person<RunEventView[]>('GET', `/api/runs/${runId}/events?limit=1000`);
    }
    const times = toolTimes(events);
    const names = times.map((t) => t.name).join(', ');
    if (names !== 'browser, use_saved_login, browser, report_done')
      throw new Error(`run ${n}: unexpected tool calls in its events: ${names}`);
    fills.push(times[1]!.ms);
    observes.push(times[2]!.ms);
  }
  if (fixture.logins() !== FILLS || fixture.failures() !== 0)
    throw new Error(`the fixture saw ${fixture.logins()} logins and ${fixture.failures()} wrong ones, not ${FILLS}`);

  const row = (label: string, values: number[]) =>
    `${label.padEnd(18)}${[median(values), percentile(values, 90), Math.min(...values), Math.max(...values)]
      .map((v) => ms(v).padStart(9))
      .join('')}`;
  console.log(`tool call time (RunEvent tool_call → tool_result) over ${FILLS} runs on a local login form (${site.url}login):`);
  console.log(`${''.padEnd(18)}${['median', 'p90', 'min', 'max'].map((h) => h.padStart(9)).join('')}`);
  console.log(row('use_saved_login', fills));
  console.log(row('browser observe', observes));
} catch (error) {
  console.error(error);
  if (stack) console.error(`API log (tail):\n${tail(path.join(stack.root, 'api.log'))}`);
  process.exitCode = 1;
} finally {
  await stack?.stop();
  await site?.close();
}
process.exit(process.exitCode ?? 0);
