// Benchmark of the run queue of apps/api: a POST /api/chats/:id/messages stores the message and a queued
// run in one transaction and rings Redis; an executor claims the run with a fenced lease and drives the
// agent loop against a scripted model (a no-op update_plan, then report_done). It reports the latency
// from accepting a message to leasing its run (Run.createdAt → Run.startedAt, both read from Postgres), the
// orchestration overhead per model round beyond the time spent inside the model server, and a burst of
// 500 messages with retried clientNonces, which must give exactly one run and one answer per message
// (exit 1 otherwise).
// As in production, the API runs alone in its own process (apps/api/dist/main.js); this process holds only
// the HTTP client and the scripted model, which in production are browsers and a remote model.
// Run with `npm run bench:queue`; it builds the API and starts its own Postgres and Redis.
// Targets: accept-to-lease median ≤ 20 ms, p99 ≤ 100 ms.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { performance as nodePerformance } from 'node:perf_hooks';
import pg from 'pg';
import {
  type ManagedProcess,
  ensureAppDatabase,
  migrateDatabase,
  startScratchServices,
  tail,
  type ScratchServices,
} from '@lazyboy/localstack';
import { ScriptedModelServer, type ReceivedRequest, type Turn } from '@lazyboy/model';
import { signUp, sleep } from '../test/support/index.js';
import { startApi } from './stack-processes.js';
import { median, percentile } from './stats.js';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 50);
const SPLIT = process.env.BENCH_SPLIT === '1';
const SEQUENTIAL = Number(process.env.BENCH_MESSAGES ?? 100);
const CONCURRENT_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BURST = Number(process.env.BENCH_BURST ?? 500);
const CONCURRENCY = Math.max(64, AGENTS + 8);
const FINAL = ['completed', 'failed', 'blocked', 'cancelled', 'waiting_input', 'waiting_takeover'];
const DATABASE = 'lazyboy_bench';
/**
 * Postgres 15 backends publish their transaction counts when idle, at the latest 10 s after the last flush
 * (PGSTAT_IDLE_INTERVAL): pg_stat_database is read only after that long a pause.
 */
const STATS_SETTLE_MS = 11_000;

const eventLoopUtilization = nodePerformance.eventLoopUtilization.bind(nodePerformance);

// --- the scripted model, and the time spent inside it per run ------------------------------------

const TAG = /\[(q[0-9a-z-]+)\]/;
/** Per run tag: model requests and milliseconds spent inside the model server answering them. */
const modelTime = new Map<string, { rounds: number; ms: number }>();
const inModel = new AsyncLocalStorage<{ tag: string | null }>();
/** Per run tag: when its first model request arrived (Date.now(), the host clock Postgres also stamps with). */
const firstModelRequestAt = new Map<string, number>();

function tagOf(request: ReceivedRequest): string | null {
  const user = request.messages.findLast((m) => m.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  return TAG.exec(text)?.[1] ?? null;
}

function script(request: ReceivedRequest): Turn {
  const tag = tagOf(request);
  const probe = inModel.getStore();
  if (probe) probe.tag = tag;
  if (request.messages.at(-1)?.role === 'tool') {
    return { toolCalls: [{ name: 'report_done', arguments: { summary: `Done with ${tag ?? 'the task'}.` } }] };
  }
  return { toolCalls: [{ name: 'update_plan', arguments: { steps: [{ title: 'Do the thing', status: 'done' }] } }] };
}

/**
 * Times every request from its arrival at the model server to its answer. The server has no hook for it,
 * so its (TypeScript-private) request handler is wrapped; the script names the run the request belongs to.
 */
function timeModelServer(server: ScriptedModelServer): void {
  const inner = server as unknown as { handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> };
  const handle = inner.handle.bind(server);
  inner.handle = (req, res) => {
    const probe = { tag: null as string | null };
    const start = performance.now();
    const arrivedAt = Date.now();
    return inModel.run(probe, async () => {
      try {
        await handle(req, res);
      } finally {
        const entry = modelTime.get(probe.tag ?? '') ?? { rounds: 0, ms: 0 };
        entry.rounds += 1;
        entry.ms += performance.now() - start;
        modelTime.set(probe.tag ?? '', entry);
        if (probe.tag && !firstModelRequestAt.has(probe.tag)) firstModelRequestAt.set(probe.tag, arrivedAt);
      }
    });
  };
}

// --- services and the API process ----------------------------------------------------------------

async function startServices(): Promise<{ services: ScratchServices; databaseUrl: string }> {
  const services = await startScratchServices('lazyboy-bench-queue-');
  try {
    await ensureAppDatabase(services.postgres.url('postgres'), DATABASE, services.appRole.name);
    const databaseUrl = services.postgres.url(DATABASE, services.appRole);
    await migrateDatabase(databaseUrl);
    return { services, databaseUrl };
  } catch (error) {
    await services.stop();
    throw error;
  }
}

/** CPU milliseconds (user + system) a process has used, from /proc (Linux; NaN elsewhere). */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

// --- HTTP --------------------------------------------------------------------------------------

async function call<T>(
  base: string,
  cookie: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(new URL(route, base), {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

interface Posted {
  runId: string;
  messageId: string;
  replayed: boolean;
  /** Milliseconds from sending the request to its response (the client's clock). */
  postMs: number;
}

let taskNo = 0;
function task(): { text: string; tag: string } {
  const tag = `q${++taskNo}-${randomUUID().slice(0, 8)}`;
  return { tag, text: `Task ${taskNo}: do the thing [${tag}]` };
}

// --- reading the queue from Postgres -------------------------------------------------------------

/** Transactions this bench itself ran (one per statement), subtracted from pg_stat_database's count. */
let benchTransactions = 0;
function query<R extends pg.QueryResultRow>(pool: pg.Pool, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
  benchTransactions += 1;
  return pool.query<R>(text, values);
}

interface RunRow {
  id: string;
  status: string;
  kind: string;
  created: number;
  started: number | null;
  finished: number | null;
  tag: string | null;
}

async function runRows(pool: pg.Pool, ids: readonly string[]): Promise<RunRow[]> {
  const { rows } = await query<RunRow>(
    pool,
    `SELECT r.id, r.status, r.kind,
            extract(epoch FROM r."createdAt") * 1000 AS created,
            extract(epoch FROM r."startedAt") * 1000 AS started,
            extract(epoch FROM r."finishedAt") * 1000 AS finished,
            substring(m.content->>'text' FROM '\\[(q[0-9a-z-]+)\\]') AS tag
     FROM "Run" r LEFT JOIN "Message" m ON m.id = r."triggerMessageId"
     WHERE r.id = ANY($1::uuid[])`,
    [ids],
  );
  return rows.map((r) => ({ ...r, created: Number(r.created), started: num(r.started), finished: num(r.finished) }));
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

async function waitFinished(pool: pg.Pool, ids: readonly string[], timeoutMs: number): Promise<RunRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await runRows(pool, ids);
    if (rows.length === ids.length && rows.every((r) => FINAL.includes(r.status))) return rows;
    if (Date.now() > deadline) {
      const open = rows.filter((r) => !FINAL.includes(r.status)).map((r) => `${r.id}:${r.status}`);
      throw new Error(`runs did not finish within ${timeoutMs} ms: ${open.slice(0, 5).join(', ')} (${open.length} open)`);
    }
    await sleep(3);
  }
}

/** Transactions committed or rolled back in the bench database so far, once every backend has published them. */
async function transactions(pool: pg.Pool): Promise<number> {
  await sleep(STATS_SETTLE_MS);
  const { rows } = await query<{ n: string }>(
    pool,
    'SELECT sum(xact_commit + xact_rollback) AS n FROM pg_stat_database WHERE datname = $1',
    [DATABASE],
  );
  return Number(rows[0]!.n) - benchTransactions;
}

// --- the figures ---------------------------------------------------------------------------------

const failures: string[] = [];
function check(ok: boolean, what: string): void {
  if (!ok) failures.push(what);
}

interface Sample {
  /** Run.createdAt → Run.startedAt, both on the database host's clock. */
  leaseMs: number;
  /** Run.createdAt → the run's first request to the model: what the lease leads to, the agent at work. */
  firstModelMs: number;
  postMs: number;
  overheadPerRoundMs: number | null;
}

function samplesOf(posted: readonly Posted[], rows: readonly RunRow[]): Sample[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return posted.map((p) => {
    const row = byId.get(p.runId)!;
    check(row.status === 'completed', `run ${row.id} ended ${row.status}`);
    check(row.kind === 'general', `run ${row.id} is a ${row.kind} run, not general`);
    const model = row.tag ? modelTime.get(row.tag) : undefined;
    const wall = row.started !== null && row.finished !== null ? row.finished - row.started : null;
    return {
      leaseMs: (row.started ?? NaN) - row.created,
      firstModelMs: (row.tag ? (firstModelRequestAt.get(row.tag) ?? NaN) : NaN) - row.created,
      postMs: p.postMs,
      overheadPerRoundMs: wall !== null && model && model.rounds > 0 ? (wall - model.ms) / model.rounds : null,
    };
  });
}

const ms = (v: number) => `${v.toFixed(1)} ms`;
interface Load {
  /** Bench process event-loop utilization (client + model server), 0..1. */
  benchBusy: number;
  /** API process CPU time / wall time, 1 = one core. */
  apiCpu: number;
  apiCpuMs: number;
  /** The same over the idle pause before the phase (no runs). */
  apiIdle: number;
  transactions: number;
}
function report(label: string, samples: readonly Sample[], load: Load): void {
  const lease = samples.map((s) => s.leaseMs);
  const post = samples.map((s) => s.postMs);
  const overhead = samples.flatMap((s) => (s.overheadPerRoundMs === null ? [] : [s.overheadPerRoundMs]));
  console.log(
    `accept-to-lease, ${label}: median ${ms(median(lease))}, p99 ${ms(percentile(lease, 99))} (target median ≤ 20 ms, p99 ≤ 100 ms)`,
  );
  const firstModel = samples.map((s) => s.firstModelMs);
  console.log(
    `  accept to the run's first model request: median ${ms(median(firstModel))}, p99 ${ms(percentile(firstModel, 99))} ` +
      '(Run.createdAt → arrival at the model server, one host clock)',
  );
  console.log(`  POST answered after median ${ms(median(post))}, p99 ${ms(percentile(post, 99))} (client side, loopback HTTP)`);
  console.log(
    `orchestration overhead per model round, ${label}: median ${ms(median(overhead))}, p99 ${ms(percentile(overhead, 99))} ` +
      `(run wall time startedAt → finishedAt − time inside the model server, / rounds)`,
  );
  console.log(
    `  ${(load.transactions / samples.length).toFixed(1)} Postgres transactions per run (pg_stat_database, the API's background loops included); ` +
      `API process CPU ${(load.apiCpu * 100).toFixed(0)}% of a core (idle before: ${(load.apiIdle * 100).toFixed(0)}%), ` +
      `${ms(load.apiCpuMs / samples.length)} of API CPU per run; bench process (client + model) event loop busy ${(load.benchBusy * 100).toFixed(0)}%`,
  );
}

/** CPU milliseconds of every API process of the bench. */
function apiCpuTotal(): number {
  return apis.reduce((sum, api) => sum + cpuMs(api.pid), 0);
}

/** Measures `phase`'s load on both processes and the database. */
async function measured<T>(pool: pg.Pool, phase: () => Promise<T>): Promise<{ result: T; load: Load }> {
  const idleCpu = apiCpuTotal();
  const idleWall = performance.now();
  const txBefore = await transactions(pool);
  const apiIdle = (apiCpuTotal() - idleCpu) / (performance.now() - idleWall);
  const elu = eventLoopUtilization();
  const cpuBefore = apiCpuTotal();
  const wallBefore = performance.now();
  const result = await phase();
  const apiCpuMs = apiCpuTotal() - cpuBefore;
  const apiCpu = apiCpuMs / (performance.now() - wallBefore);
  const benchBusy = eventLoopUtilization(elu).utilization;
  return { result, load: { benchBusy, apiCpu, apiCpuMs, apiIdle, transactions: (await transactions(pool)) - txBefore } };
}

const stop: (() => Promise<void>)[] = [];
const apis: ManagedProcess[] = [];
let apiLog: string | null = null;
try {
  const { services, databaseUrl } = await startServices();
  stop.push(() => services.stop());
  const model = await ScriptedModelServer.start(script);
  timeModelServer(model);
  stop.unshift(() => model.close());
  const homes = path.join(services.root, 'homes');
  mkdirSync(homes);
  const apiEnv = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: services.redis.url,
    LAZYBOY_VAULT_KEY: randomBytes(24).toString('hex'),
    LAZYBOY_INTERNAL_SECRET: randomBytes(24).toString('hex'),
    LAZYBOY_LOG_LEVEL: 'error',
    LAZYBOY_RUN_CONCURRENCY: String(CONCURRENCY),
    LAZYBOY_HOMES_DIR: homes,
    // The executors resolve their model from the environment.
    LAZYBOY_MODEL_PROVIDER: 'openai-chat',
    LAZYBOY_MODEL_BASE_URL: model.url,
    LAZYBOY_MODEL: model.model,
    OPENAI_API_KEY: 'x',
    // The bench signs its people up freely.
    LAZYBOY_SIGNUP: 'open',
  };
  // BENCH_SPLIT=1: two replicas, as a deployment may run them: one serves HTTP (LAZYBOY_RUNNER=false), the
  // other only executes runs. Default: one API process doing both.
  apiLog = path.join(services.root, 'api.log');
  const { process: api, url } = await startApi(
    { ...apiEnv, ...(SPLIT ? { LAZYBOY_RUNNER: 'false' } : {}) },
    apiLog,
    process.env.BENCH_API_PROFILE,
  );
  apis.push(api);
  if (SPLIT) apis.push((await startApi(apiEnv, path.join(services.root, 'runner.log'), process.env.BENCH_API_PROFILE)).process);
  stop.unshift(() => Promise.all(apis.map((a) => a.stop())).then(() => undefined));
  // The API runs in its own process group: a Ctrl-C here does not reach it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void Promise.all(apis.map((a) => a.stop())).finally(() => process.exit(130)));
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  stop.unshift(() => pool.end());

  const user = await signUp(url);
  const chats: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const agent = await call<{ id: string }>(url, user.cookie, 'POST', `/api/workspaces/${user.workspaceId}/agents`, {
      name: `Bench agent ${i}`,
    });
    if (agent.status !== 201) throw new Error(`creating an agent answered ${agent.status}: ${JSON.stringify(agent.body)}`);
    const chat = await call<{ id: string }>(url, user.cookie, 'POST', `/api/agents/${agent.body.id}/chats`, {});
    if (chat.status !== 201) throw new Error(`creating a chat answered ${chat.status}: ${JSON.stringify(chat.body)}`);
    chats.push(chat.body.id);
  }

  const post = async (chatId: string, text: string, clientNonce: string): Promise<Posted> => {
    const sentAt = performance.now();
    const res = await call<{ message: { id: string }; run: { id: string }; replayed: boolean }>(
      url,
      user.cookie,
      'POST',
      `/api/chats/${chatId}/messages`,
      { text, clientNonce },
    );
    const postMs = performance.now() - sentAt;
    if (res.status !== 202) throw new Error(`POST message answered ${res.status}: ${JSON.stringify(res.body)}`);
    return { runId: res.body.run.id, messageId: res.body.message.id, replayed: res.body.replayed, postMs };
  };
  const postTask = (chatId: string) => post(chatId, task().text, `nonce-${randomUUID()}`);

  // Warm-up (JIT, pools, connections): not counted.
  for (let i = 0; i < 5; i++) await waitFinished(pool, [(await postTask(chats[0]!)).runId], 30_000);
  await waitFinished(pool, await Promise.all(chats.map(async (s) => (await postTask(s)).runId)), 60_000);

  console.log(
    'accept-to-lease is Run.createdAt → Run.startedAt as stored (millisecond precision). createdAt is stamped inside the accept ' +
      "statement, before its commit, and claimNext's startedAt is Postgres now(), the claim transaction's start: " +
      'the figure includes the accept commit and slightly overstates the time from commit to lease. A run the accepting ' +
      'replica leases to its own free executor slot in the accept statement itself has startedAt = createdAt (0 ms); ' +
      "the next line, accept to the run's first model request, shows when its agent actually got to work.",
  );

  // 1. and 2., one agent: each message after the previous run completed.
  const one = await measured(pool, async () => {
    const samples: Sample[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      const posted = await postTask(chats[1 % AGENTS]!);
      samples.push(...samplesOf([posted], await waitFinished(pool, [posted.runId], 30_000)));
    }
    return samples;
  });
  report(`1 agent (${SEQUENTIAL} sequential messages)`, one.result, one.load);

  // 1. and 2., every agent at once: one message each, several rounds.
  const all = await measured(pool, async () => {
    const samples: Sample[] = [];
    for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
      const posted = await Promise.all(chats.map((s) => postTask(s)));
      const rows = await waitFinished(
        pool,
        posted.map((p) => p.runId),
        60_000,
      );
      samples.push(...samplesOf(posted, rows));
    }
    return samples;
  });
  report(`${AGENTS} concurrent agents (${CONCURRENT_ROUNDS} rounds, ${all.result.length} runs)`, all.result, all.load);

  // 3. A burst with retried clientNonces: one run and one answer per message, none lost or doubled.
  const perAgent = Math.ceil(BURST / AGENTS);
  const answers = new Map<string, Posted[]>();
  let posts = 0;
  const burstStart = Date.now();
  await Promise.all(
    chats.map(async (chatId, agent) => {
      for (let i = 0; i < perAgent && agent * perAgent + i < BURST; i++) {
        const { text } = task();
        const nonce = `burst-${randomUUID()}`;
        const copies = Math.random() < 0.3 ? 2 + Math.floor(Math.random() * 2) : 1;
        const got: Posted[] = [];
        if (copies > 1 && Math.random() < 0.5) {
          got.push(...(await Promise.all(Array.from({ length: copies }, () => post(chatId, text, nonce)))));
        } else {
          for (let c = 0; c < copies; c++) {
            got.push(await post(chatId, text, nonce));
            if (c < copies - 1) await sleep(Math.random() * 20);
          }
        }
        posts += copies;
        answers.set(nonce, got);
      }
    }),
  );
  const nonces = [...answers.keys()];
  const runIds = [...new Set([...answers.values()].flatMap((g) => g.map((p) => p.runId)))];
  const finished = await waitFinished(pool, runIds, 300_000);
  // Both ends on the same host's clock: Date.now() here, finishedAt from the API.
  const burstMs = Math.max(...finished.map((r) => r.finished ?? 0)) - burstStart;

  for (const [nonce, got] of answers) {
    check(new Set(got.map((p) => p.runId)).size === 1, `nonce ${nonce}: retries answered different runs`);
    check(new Set(got.map((p) => p.messageId)).size === 1, `nonce ${nonce}: retries answered different messages`);
    check(
      got.filter((p) => !p.replayed).length === 1,
      `nonce ${nonce}: ${got.filter((p) => !p.replayed).length} POSTs were not replays`,
    );
  }
  const counts = await query<{
    nonce: string;
    messages: string;
    runs: string;
    run_id: string | null;
    status: string | null;
    answers: string;
  }>(
    pool,
    `SELECT m."clientNonce" AS nonce,
            count(DISTINCT m.id) AS messages,
            count(DISTINCT r.id) AS runs,
            min(r.id::text) AS run_id,
            min(r.status::text) AS status,
            (SELECT count(*) FROM "Message" a WHERE a."runId" = min(r.id::text)::uuid AND a.role = 'assistant') AS answers
     FROM "Message" m LEFT JOIN "Run" r ON r."triggerMessageId" = m.id
     WHERE m."clientNonce" = ANY($1::text[]) AND m.role = 'user'
     GROUP BY m."clientNonce"`,
    [nonces],
  );
  const rows = counts.rows;
  const lost = nonces.length - rows.length;
  const doubledMessages = rows.filter((r) => Number(r.messages) !== 1).length;
  const runless = rows.filter((r) => Number(r.runs) === 0).length;
  const doubledRuns = rows.filter((r) => Number(r.runs) > 1).length;
  const notCompleted = rows.filter((r) => r.status !== 'completed').length;
  const answerCounts = rows.map((r) => Number(r.answers));
  check(lost === 0, `${lost} messages lost`);
  check(doubledMessages === 0, `${doubledMessages} messages stored twice`);
  check(runless === 0, `${runless} messages without a run`);
  check(doubledRuns === 0, `${doubledRuns} messages with more than one run`);
  check(notCompleted === 0, `${notCompleted} runs not completed`);
  check(
    answerCounts.every((n) => n === 1),
    `${answerCounts.filter((n) => n !== 1).length} runs without exactly one assistant answer`,
  );
  check(runIds.length === nonces.length, `${runIds.length} distinct runs answered for ${nonces.length} messages`);
  console.log(
    `burst: ${nonces.length} messages over ${AGENTS} agents, ${posts} POSTs (${posts - nonces.length} retries of the same clientNonce): ` +
      `${rows.length} stored, ${rows.length - runless} with a run, ${doubledRuns} doubled, ${lost} lost, ` +
      `${rows.length - notCompleted} completed, ${answerCounts.filter((n) => n === 1).length} with exactly one answer`,
  );
  console.log(
    `burst: first POST to last run finished ${(burstMs / 1000).toFixed(2)} s, ${(nonces.length / (burstMs / 1000)).toFixed(1)} runs/s`,
  );
  for (const api of apis) if (!api.running) check(false, `an API process exited during the bench:\n${tail(apiLog)}`);
  if (failures.length > 0) {
    console.error(`FAILED sanity checks (${failures.length}):\n  ${failures.slice(0, 20).join('\n  ')}`);
    process.exitCode = 1;
  }
} catch (error) {
  console.error(error);
  if (apiLog) console.error(`API log (tail):\n${tail(apiLog)}`);
  process.exitCode = 1;
} finally {
  for (const step of stop) await step().catch((error: unknown) => console.error(`cleanup: ${(error as Error).message}`));
}
// The pg pool may keep timers a moment longer; the figures are printed.
process.exit(process.exitCode ?? 0);
