import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import type { MessageView } from '@lazyboy/contracts';
import { clearComputerLeftovers, listPids, readEnviron } from '@lazyboy/desktop';
import { findFreePort, repoRoot } from '@lazyboy/localstack';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { startTestApp, type TestApp } from '../../apps/api/src/testing/test-app.js';
import { FINAL, ServiceHarness, startButtonSite } from './service-harness.js';
import { contentText, lastToolText, sleep, until } from '../support/index.js';

// Executors that die or stall mid-tool. Postgres decides who owns a run (fenced leases): a run whose
// executor was killed is recovered by another with an explicit "outcome unknown" (never replayed), and
// an executor whose lease was taken over cannot write anything more.

describe('executor faults', () => {
  const harness = new ServiceHarness();
  let site: Awaited<ReturnType<typeof startButtonSite>>;
  let db: pg.Client;
  const extraApps: TestApp[] = [];
  const children: ChildProcess[] = [];

  function answer(request: ReceivedRequest): Turn {
    const asked = contentText([...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '');
    const tool = lastToolText(request);
    const target = asked.includes('hanging') ? `${site.url}hang` : `${site.url}slow`;
    if (!tool) return { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: target } }] };
    if (tool.startsWith('outcome unknown'))
      return { toolCalls: [{ name: 'report_done', arguments: { summary: 'Recovered without repeating the call.' } }] };
    return { toolCalls: [{ name: 'report_done', arguments: { summary: 'The stale executor finished.' } }] };
  }

  beforeAll(async () => {
    site = await startButtonSite();
    // This replica serves HTTP only: the executors under test are started by each case.
    await harness.start((request) => answer(request), { LAZYBOY_RUNNER: 'false' });
    db = new pg.Client({ connectionString: harness.database.url });
    await db.connect();
  });

  afterAll(async () => {
    for (const child of children) {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone (the case killed it)
      }
    }
    try {
      for (const app of extraApps) await app.close();
      killWorkersUnder(harness.homes);
      // The killed workers' desktops run in process groups of their own and go on writing to the homes.
      await clearComputerLeftovers({ homesDir: harness.homes });
      await db?.end();
      await harness.stop();
    } finally {
      await site?.close();
    }
  }, 120_000);

  const runRow = async (id: string) =>
    (
      await db.query<{ status: string; leaseOwner: string | null; leaseFence: string }>(
        'SELECT status, "leaseOwner", "leaseFence" FROM "Run" WHERE id = $1',
        [id],
      )
    ).rows[0]!;

  it('recovers a run whose executor was killed mid-tool with "outcome unknown", without replaying the call', async () => {
    const { user, chatId } = await harness.userWithAgent();
    // Executor A: a real API process, killed with SIGKILL while its browser call waits on a page that never loads.
    const port = await findFreePort();
    const a = spawn(process.execPath, [path.join(repoRoot, 'apps/api/dist/main.js')], {
      cwd: repoRoot,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, ...stringEnv(harness.config({ LAZYBOY_API_PORT: String(port), LAZYBOY_RUN_LEASE_MS: '3000' })) },
    });
    children.push(a);

    const sent = await harness.send(user, chatId, 'Open the hanging page');
    await until('the page request of executor A', () => site.requests('/hang') === 1, { timeoutMs: 90_000, everyMs: 100 });
    const before = await runRow(sent.run.id);
    expect(before.status).toBe('running');
    process.kill(-a.pid!, 'SIGKILL');

    // Executor B takes the run over once A's lease has expired.
    extraApps.push(await startTestApp(harness.config({ LAZYBOY_RUN_LEASE_MS: '3000' })));
    const done = await harness.runUntil(user, sent.run.id, FINAL, 90_000);
    expect(done).toMatchObject({ status: 'completed', resultText: 'Recovered without repeating the call.' });
    expect(BigInt((await runRow(sent.run.id)).leaseFence)).toBeGreaterThan(BigInt(before.leaseFence));
    expect(site.requests('/hang')).toBe(1);
    const recovery = harness.model.requests.find((r) => lastToolText(r).startsWith('outcome unknown'));
    expect(lastToolText(recovery!)).toContain('It was NOT run again');
  }, 180_000);

  it('refuses every write of an executor whose lease expired and was taken over', async () => {
    const { user, chatId } = await harness.userWithAgent();
    const a = await startTestApp(harness.config({ LAZYBOY_RUN_LEASE_MS: '60000' }));
    extraApps.push(a);
    const sent = await harness.send(user, chatId, 'Open the slow page');
    const slowBefore = site.requests('/slow');
    await until('the slow page request of executor A', () => site.requests('/slow') > slowBefore, {
      timeoutMs: 90_000,
      everyMs: 100,
    });
    const held = await runRow(sent.run.id);

    // A stalls past its lease (simulated by expiring it); B claims the run with a newer fence. A's renewal
    // timer may extend the lease again before anyone claims it (a holder may renew until it is taken over):
    // the lease is kept expired until the fence moves on.
    const expire = () =>
      db.query(`UPDATE "Run" SET "leaseExpiresAt" = now() - interval '1 second' WHERE id = $1 AND "leaseFence" = $2`, [
        sent.run.id,
        held.leaseFence,
      ]);
    await expire();
    let claimed = false;
    const deadline = Date.now() + 60_000;
    const keepExpired = (async () => {
      while (!claimed && Date.now() < deadline) {
        await expire();
        claimed = BigInt((await runRow(sent.run.id)).leaseFence) > BigInt(held.leaseFence);
        await sleep(50);
      }
    })();
    extraApps.push(await startTestApp(harness.config({ LAZYBOY_RUN_LEASE_MS: '60000' })));
    await keepExpired;
    const done = await harness.runUntil(user, sent.run.id, FINAL, 90_000);
    expect(done).toMatchObject({ status: 'completed', resultText: 'Recovered without repeating the call.' });
    const after = await runRow(sent.run.id);
    expect(BigInt(after.leaseFence)).toBe(BigInt(held.leaseFence) + 1n);

    // A's page load finishes ~5 s after it started; its result and anything after it must not land.
    await sleep(6_000);
    const page = await harness.call<{ items: MessageView[] }>(user, 'GET', `/api/chats/${chatId}/messages`);
    expect(page.items.map((m) => m.text)).toEqual(['Open the slow page', 'Recovered without repeating the call.']);
    expect((await runRow(sent.run.id)).status).toBe('completed');
    const events = await harness.call<{ type: string; payload: { preview?: string } }[]>(
      user,
      'GET',
      `/api/runs/${sent.run.id}/events`,
    );
    expect(
      events.filter((e) => e.type === 'tool_result').every((e) => !String(e.payload.preview ?? '').includes('Slow page')),
    ).toBe(true);
    expect(harness.model.requests.some((r) => lastToolText(r).includes('Slow page loaded'))).toBe(false);
  }, 180_000);
});

/** A parsed configuration as the environment it came from (null: unset; lists: comma-separated). */
function stringEnv(config: object): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config).flatMap(([k, v]) =>
      v === undefined || v === null ? [] : [[k, Array.isArray(v) ? v.join(',') : String(v)]],
    ),
  );
}

/** Workers left by the killed API process (their home is under this suite's directory). */
function killWorkersUnder(homes: string): void {
  for (const pid of listPids()) {
    if (!readEnviron(pid)?.get('LAZYBOY_COMPUTER_HOME')?.startsWith(homes)) continue;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}
