import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import pg from 'pg';
import { signUp, type TestUser, contentText, isImageCarrier, lastPersonText } from '../support/index.js';
import { StandInInternet } from '../../libs/desktop/src/testing/stand-in-internet.js';
import { startTestPages, type TestSite } from '../../libs/desktop/src/testing/test-site.js';
import { FINAL } from '../service/service-harness.js';
import { WebHarness } from '../web/web-harness.js';

// Two tenants on one host, as an outsider would attack it: tenant B's agent, driven by a scripted model
// through its own tools (browser navigate / eval with fetch and WebSocket, shell), tries every port the
// stack opened on this host (the API, the web server, Postgres, Redis, the model server, tenant A's worker)
// and a sweep of the ephemeral range, the other tenant's sockets and files, and, on its own Team computer,
// the other agent's screen. Every screen is a network island whose one way out is the egress proxy.

type ToolCall = { name: string; arguments: Record<string, unknown> };

const asRoot = process.getuid?.() === 0;
const describeAsRoot = asRoot ? describe : describe.skip;

/** Plans by id: the person says "run plan <id>", the model calls the plan's tools in order, then reports. */
const plans = new Map<string, ToolCall[]>();

function toolResultsSincePerson(request: ReceivedRequest): string[] {
  const results: string[] = [];
  for (const m of [...request.messages].reverse()) {
    if (m.role === 'user' && !isImageCarrier(m)) break;
    if (m.role === 'tool') results.unshift(contentText(m.content));
  }
  return results;
}

function answer(request: ReceivedRequest): Turn {
  const id = /^run plan (\S+)/.exec(lastPersonText(request))?.[1];
  const plan = id ? plans.get(id) : undefined;
  if (!plan) return { text: 'nothing to do' };
  const done = toolResultsSincePerson(request).length;
  const next = plan[done];
  if (next) return { toolCalls: [next] };
  return { toolCalls: [{ name: 'report_done', arguments: { summary: `plan ${id} done` } }] };
}

const browser = (args: Record<string, unknown>): ToolCall => ({ name: 'browser', arguments: args });
const shell = (command: string): ToolCall => ({ name: 'shell', arguments: { command, block_until_ms: 120_000 } });

/** Every TCP port something listens on in this (the host's) network namespace. */
function hostListeningPorts(): number[] {
  const out = execFileSync('ss', ['-Hltn'], { encoding: 'utf8' });
  const ports = out
    .trim()
    .split('\n')
    .map((line) => Number(/:(\d+)\s*$/.exec(line.split(/\s+/)[3] ?? '')?.[1]))
    .filter((port) => Number.isInteger(port) && port > 0);
  return [...new Set(ports)].sort((a, b) => a - b);
}

/** This machine's own non-loopback addresses (a computer must not reach the host by its LAN address either). */
function hostAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((i) => i !== undefined && i.family === 'IPv4' && !i.internal)
    .map((i) => i!.address);
}

describeAsRoot('one tenant cannot reach another tenant’s computer or the host’s services', () => {
  const harness = new WebHarness();
  let db: pg.Client;
  let lan: StandInInternet;
  let site: TestSite;
  let lanSite: { url: string; close(): void };
  let tenantA: TestUser;
  let tenantB: TestUser;
  let agentA = '';
  let agentB1 = '';
  let agentB2 = '';
  let chatB1 = '';
  let chatB2 = '';
  let ports: number[] = [];

  /** Runs a plan as agent `chatId` of `user` and gives back its tool results, in order. */
  async function runPlan(user: TestUser, chatId: string, id: string, calls: ToolCall[]): Promise<string[]> {
    plans.set(id, calls);
    const sent = await harness.service.send(user, chatId, `run plan ${id}`);
    const run = await harness.service.runUntil(user, sent.run.id, FINAL, 240_000);
    expect(run.status).toBe('completed');
    const last = [...harness.service.model.requests].reverse().find((r) => lastPersonText(r) === `run plan ${id}`);
    return last ? toolResultsSincePerson(last) : [];
  }

  beforeAll(async () => {
    await harness.start((request) => answer(request));
    db = new pg.Client({ connectionString: harness.service.database.url });
    await db.connect();
    site = await startTestPages({ '/': '<!doctype html><title>Outside</title><p id="p">from the internet</p>' });
    lan = await StandInInternet.start({ lan: true });
    lanSite = await lan.serveSite({ '/': '<p>the LAN app</p>' }, 8080);

    tenantA = await signUp(harness.service.app.url);
    tenantB = await signUp(harness.service.app.url);
    const agent = async (user: TestUser, name: string) =>
      (await harness.service.call<{ id: string }>(user, 'POST', `/api/workspaces/${user.workspaceId}/agents`, { name })).id;
    agentA = await agent(tenantA, 'Alice');
    agentB1 = await agent(tenantB, 'Bea');
    agentB2 = await agent(tenantB, 'Ben');
    chatB1 = (await harness.service.call<{ id: string }>(tenantB, 'POST', `/api/agents/${agentB1}/chats`, {})).id;
    chatB2 = (await harness.service.call<{ id: string }>(tenantB, 'POST', `/api/agents/${agentB2}/chats`, {})).id;
    // Tenant A's computer runs, with its browser logged in somewhere (a cookie an attacker would want).
    await harness.service.call(tenantA, 'POST', `/api/agents/${agentA}/computer/boot`);
    await harness.service.call(tenantB, 'POST', `/api/agents/${agentB1}/computer/boot`);
    await harness.service.call(tenantB, 'POST', `/api/agents/${agentB2}/computer/boot`);
    ports = hostListeningPorts();
  }, 300_000);

  afterAll(async () => {
    await db?.end();
    site?.close();
    lanSite?.close();
    lan?.stop();
    await harness.stop();
  }, 120_000);

  it('probes every port the stack opened: there are the API, the web server, Postgres, Redis and A’s worker', async () => {
    const { rows } = await db.query<{ endpoint: string; workspaceId: string }>(
      'SELECT endpoint, "workspaceId" FROM "Computer" WHERE endpoint IS NOT NULL',
    );
    const workerA = rows.find((r) => r.workspaceId === tenantA.workspaceId)!;
    const expected = [
      new URL(harness.service.app.url).port,
      new URL(harness.webUrl).port,
      new URL(harness.service.model.url).port,
      new URL(workerA.endpoint).port,
      new URL(harness.service.database.url).port,
      new URL(harness.service.config().REDIS_URL).port,
    ].map(Number);
    expect(ports).toEqual(expect.arrayContaining(expected));
  });

  it("from B's browser: no navigation, fetch or WebSocket reaches any of them, nor any port of the ephemeral range", async () => {
    const targets = ports.map((port) => `http://127.0.0.1:${port}/`);
    const probe = `(async () => {
      const out = [];
      for (const url of ${JSON.stringify(targets)}) {
        const fetched = await fetch(url, { mode: 'no-cors', signal: AbortSignal.timeout(4000) }).then(() => 'answered', () => 'refused');
        const socket = await new Promise((resolve) => {
          const ws = new WebSocket(url.replace('http', 'ws'));
          ws.onopen = () => { ws.close(); resolve('open'); };
          ws.onerror = () => resolve('refused');
          setTimeout(() => resolve('timeout'), 4000);
        });
        out.push(url + ' fetch ' + fetched + ' ws ' + socket);
      }
      return out;
    })()`;
    // The ephemeral range in four evals: one sweep of all 28 232 ports outlasted the worker's eval timeout on
    // a loaded machine.
    const sweep = (from: number, to: number) => `(async () => {
      const open = [];
      const ports = [];
      for (let p = ${from}; p <= ${to}; p++) ports.push(p);
      const started = Date.now();
      for (let i = 0; i < ports.length; i += 400) {
        await Promise.all(ports.slice(i, i + 400).map((p) =>
          fetch('http://127.0.0.1:' + p + '/', { mode: 'no-cors', signal: AbortSignal.timeout(4000) }).then(() => open.push(p), () => undefined)));
      }
      return { open, ms: Date.now() - started };
    })()`;
    const quarters = [
      [32768, 39825],
      [39826, 46883],
      [46884, 53941],
      [53942, 60999],
    ] as const;
    const results = await runPlan(tenantB, chatB1, 'browser-probe', [
      browser({ action: 'navigate', url: site.url }),
      browser({ action: 'navigate', url: `http://127.0.0.1:${new URL(harness.service.app.url).port}/api/auth/me` }),
      browser({ action: 'navigate', url: site.url }),
      browser({ action: 'eval', expression: probe }),
      ...quarters.map(([from, to]) => browser({ action: 'eval', expression: sweep(from, to) })),
    ]);
    expect(results[0]).toContain('from the internet');
    expect(results[1]).toMatch(/ERR_CONNECTION_REFUSED/);
    const probed = results[3]!;
    for (const url of targets) expect(probed).toContain(`${url} fetch refused ws refused`);
    expect(probed).not.toMatch(/answered|ws open/);
    expect(results.slice(4)).toHaveLength(4);
    for (const swept of results.slice(4)) expect(swept).toMatch(/"open": \[\]/);
  }, 300_000);

  it("from B's shell: no port of the host answers, directly or through the proxy, by loopback or by the host's own address", async () => {
    const addresses = ['127.0.0.1', ...hostAddresses()];
    const script = [
      `for a in ${addresses.join(' ')}; do for p in ${ports.join(' ')}; do`,
      `  (exec 3<>/dev/tcp/$a/$p) 2>/dev/null && echo "DIRECT-OPEN $a:$p";`,
      // Through the egress proxy on purpose (no_proxy sends loopback straight to the island's own loopback).
      `  code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' --noproxy '' -x http://127.0.0.1:3128 http://$a:$p/);`,
      `  [ "$code" = 403 ] || echo "PROXIED $a:$p $code";`,
      '  done; done',
      'echo PROBED',
    ].join('\n');
    const [out = ''] = await runPlan(tenantB, chatB1, 'shell-probe', [shell(script)]);
    expect(out).toContain('PROBED');
    expect(out).not.toMatch(/DIRECT-OPEN|PROXIED/);
  }, 300_000);

  it("from B's shell: none of A's sockets, files or processes are there to touch", async () => {
    const { rows } = await db.query<{ id: string; homeKey: string }>(
      'SELECT id, "homeKey" FROM "Computer" WHERE "workspaceId" = $1',
      [tenantA.workspaceId],
    );
    const homeA = path.join(harness.service.homes, rows[0]!.homeKey);
    const runtimeA = readdirSync('/tmp').filter((name) => name.startsWith(`lazyboy-computer-${rows[0]!.id}`));
    expect(runtimeA).toHaveLength(1);
    const script = [
      `ls ${homeA} 2>&1 | head -3; echo "HOME-A $?"`,
      `ls /tmp 2>&1; for d in ${runtimeA.map((d) => `/tmp/${d}`).join(' ')}; do ls $d >/dev/null 2>&1 && echo "SAW $d"; done`,
      `ls /tmp/.X11-unix/`,
      `ps -e -o user= | sort -u`,
      `grep -c vnc /proc/net/unix || true`,
      'echo CHECKED',
    ].join('\n');
    const [out = ''] = await runPlan(tenantB, chatB1, 'files-probe', [shell(script)]);
    expect(out).toContain('CHECKED');
    expect(out).not.toContain('SAW ');
    expect(out).toMatch(/No such file or directory|HOME-A [^0]/);
    // Its own display's socket only, and only its own processes.
    const display = (
      await harness.service.call<{ screen: { display: number } }>(tenantB, 'GET', `/api/agents/${agentB1}/computer`)
    ).screen.display;
    expect(out).toContain(`X${display}`);
    expect(out.match(/\bX\d+\b/g)?.filter((x) => x !== `X${display}`) ?? []).toEqual([]);
  }, 300_000);

  it("on B's Team computer, agent Ben cannot drive agent Bea's screen, browser or profile", async () => {
    const beaDisplay = (
      await harness.service.call<{ screen: { display: number } }>(tenantB, 'GET', `/api/agents/${agentB1}/computer`)
    ).screen.display;
    const benDisplay = (
      await harness.service.call<{ screen: { display: number } }>(tenantB, 'GET', `/api/agents/${agentB2}/computer`)
    ).screen.display;
    expect(benDisplay).not.toBe(beaDisplay);
    const script = [
      `DISPLAY=:${beaDisplay} xdotool getmouselocation 2>&1 && echo DROVE-BEA`,
      `DISPLAY=:${beaDisplay} XAUTHORITY=$XAUTHORITY xdotool getmouselocation 2>&1 && echo DROVE-BEA-WITH-OWN-COOKIE`,
      `ls ~/.lazyboy/chromium 2>&1; cat ~/.lazyboy/chromium/*/Default/Cookies >/dev/null 2>&1 && echo READ-COOKIES`,
      `ss -Hltn`,
      `ss -Hlx | grep -c -v "X11-unix/X${benDisplay}" || true`,
      'echo CHECKED',
    ].join('\n');
    const [out = ''] = await runPlan(tenantB, chatB2, 'team-probe', [shell(script)]);
    expect(out).toContain('CHECKED');
    expect(out).not.toMatch(/DROVE-BEA|READ-COOKIES/);
    // The one listener in Ben's island is the egress proxy.
    expect(out.match(/\d+\.\d+\.\d+\.\d+:\d+/g) ?? []).toEqual(['127.0.0.1:3128']);
  }, 300_000);

  it("B's shell downloads from the internet through the egress proxy, but not from the LAN (refused and logged)", async () => {
    const [out = ''] = await runPlan(tenantB, chatB1, 'egress', [
      shell(`curl -sS -m 10 ${site.url} && echo FETCHED; curl -sS -m 10 ${lanSite.url}; echo "LAN $?"`),
    ]);
    expect(out).toContain('from the internet');
    expect(out).toContain('FETCHED');
    expect(out).not.toContain('the LAN app');
    // The local pool driver keeps workers' logs next to the homes directory.
    const logDir = path.join(path.dirname(harness.service.homes), 'logs');
    const lines = readdirSync(logDir)
      .filter((name) => name.endsWith('.log'))
      .map((name) => readFileSync(path.join(logDir, name), 'utf8'))
      .join('\n');
    expect(lines).toMatch(
      new RegExp(`egress refused: screen \\d → ${lan.address.replace(/\./g, '\\.')}:8080 \\(private-network\\)`),
    );
  }, 300_000);
});
