// Benchmark of the run queue of apps/api: a POST /api/sessions/:id/messages stores the message and a queued
// run in one transaction and rings Redis; an executor claims the run with a fenced lease and drives the
// agent loop against a scripted model (a no-op update_plan, then report_done). It reports the latency
// from the POST to the lease (Run.startedAt), the orchestration overhead per model round beyond the time
// spent inside the model server, and a burst of 500 messages with retried clientNonces, which must give
// exactly one run and one answer per message (exit 1 otherwise).
// Run with `npm run bench:queue`; it starts its own Postgres and Redis and the API in-process.
// Targets: accept-to-lease median ≤ 20 ms, p99 ≤ 100 ms.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, symlinkSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { performance as nodePerformance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ensureDatabase, migrateDatabase, repoRoot, startScratchServices, type ScratchServices } from '@lazyboy/localstack';
import { ScriptedModelServer, type ReceivedRequest, type Turn } from '@lazyboy/model';
import { median, percentile } from './stats.js';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 50);
const SEQUENTIAL = Number(process.env.BENCH_MESSAGES ?? 100);
const CONCURRENT_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BURST = Number(process.env.BENCH_BURST ?? 500);
const CONCURRENCY = Math.max(64, AGENTS + 8);
const FINAL = ['completed', 'failed', 'blocked', 'cancelled', 'waiting_input', 'waiting_takeover'];

// The API's sources are compiled next to this file (bench/dist/queue/apps/api); packages only apps/api
// holds (its own cookie version) must resolve as they do from apps/api itself.
const here = path.dirname(fileURLToPath(import.meta.url));
const compiledApiModules = path.join(here, '../apps/api/node_modules');
if (!existsSync(compiledApiModules)) symlinkSync(path.join(repoRoot, 'apps/api/node_modules'), compiledApiModules, 'dir');
const { startTestApp } = await import('../apps/api/src/testing/test-app.js');
const { loadApiConfig } = await import('../apps/api/src/config/api-config.js');
const { signUp } = await import('../apps/api/src/testing/test-users.js');
const { RunsRepository } = await import('../apps/api/src/runs/runs.repository.js');
const { SessionsRepository } = await import('../apps/api/src/sessions/sessions.repository.js');

const eventLoopUtilization = nodePerformance.eventLoopUtilization.bind(nodePerformance);
/** Wall-clock milliseconds with sub-millisecond resolution: comparable with Postgres timestamps (same host). */
const epochNow = () => performance.timeOrigin + performance.now();

// --- the scripted model, and the time spent inside it per run ------------------------------------

const TAG = /\[(q[0-9a-z-]+)\]/;
/** Per run tag: model requests and milliseconds spent inside the model server answering them. */
const modelTime = new Map<string, { rounds: number; ms: number }>();
const inModel = new AsyncLocalStorage<{ tag: string | null }>();

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
    return inModel.run(probe, async () => {
      try {
        await handle(req, res);
      } finally {
        const entry = modelTime.get(probe.tag ?? '') ?? { rounds: 0, ms: 0 };
        entry.rounds += 1;
        entry.ms += performance.now() - start;
        modelTime.set(probe.tag ?? '', entry);
      }
    });
  };
}

// --- where the time goes inside the API (instance methods wrapped; apps/api is not changed) --------

interface Span {
  start: number;
  end: number;
}
/** Per run id: its accept transaction, and the claim that leased it (claim statement + reading the run back). */
const accepts = new Map<string, Span>();
const claims = new Map<string, Span>();
let emptyClaims: number[] = [];

function wrap<A extends unknown[], R>(target: object, key: string, record: (span: Span, result: R) => void): void {
  const methods = target as Record<string, (...args: A) => Promise<R>>;
  const original = methods[key]!.bind(target);
  methods[key] = async (...args: A) => {
    const start = epochNow();
    const result = await original(...args);
    record({ start, end: epochNow() }, result);
    return result;
  };
}

/** Statements the API sent to Postgres (the bench's own pool is not counted). */
let apiQueries = 0;
const benchClients = new WeakSet<object>();
function countQueries(): void {
  const client = pg.Client.prototype as unknown as { query(this: object, ...args: unknown[]): unknown };
  const query = client.query;
  client.query = function (this: object, ...args: unknown[]) {
    if (!benchClients.has(this)) apiQueries += 1;
    return query.apply(this, args);
  };
}

function instrument(app: { get<T>(type: abstract new (...args: never[]) => T): T }): void {
  wrap<unknown[], { run: { id: string }; replayed: boolean }>(app.get(SessionsRepository), 'acceptMessage', (span, accepted) => {
    if (!accepted.replayed) accepts.set(accepted.run.id, span);
  });
  wrap<unknown[], string[]>(app.get(RunsRepository), 'claimNext', (span, ids) => {
    for (const id of ids) claims.set(id, span);
    if (ids.length === 0) emptyClaims.push(span.end - span.start);
  });
}

// --- services ------------------------------------------------------------------------------------

async function startServices(): Promise<{ services: ScratchServices; databaseUrl: string }> {
  const services = await startScratchServices('lazyboy-bench-queue-');
  await ensureDatabase(services.postgres.url('postgres'), 'lazyboy_bench');
  const databaseUrl = services.postgres.url('lazyboy_bench');
  await migrateDatabase(databaseUrl);
  return { services, databaseUrl };
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
  /** Wall clock when the request started / its response arrived. */
  sentAt: number;
  answeredAt: number;
}

let taskNo = 0;
function task(): { text: string; tag: string } {
  const tag = `q${++taskNo}-${randomUUID().slice(0, 8)}`;
  return { tag, text: `Task ${taskNo}: do the thing [${tag}]` };
}

// --- reading the queue from Postgres -------------------------------------------------------------

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
  const { rows } = await pool.query<RunRow>(
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
    await new Promise((r) => setTimeout(r, 3));
  }
}

// --- the figures ---------------------------------------------------------------------------------

const failures: string[] = [];
function check(ok: boolean, what: string): void {
  if (!ok) failures.push(what);
}

interface Sample {
  leaseMs: number;
  /** Request start → Run.createdAt (routing, auth, the accept transaction up to its insert). */
  toCreatedMs: number;
  /** Run.createdAt → Run.startedAt (commit, wake-up, claim). */
  createdToLeaseMs: number;
  postMs: number;
  overheadPerRoundMs: number | null;
  acceptTxMs: number;
  /** Accept transaction done → the claim that leased the run starts: wake-up, and the wait behind the one-at-a-time pump. */
  acceptToClaimMs: number;
  claimMs: number;
}

function samplesOf(posted: readonly Posted[], rows: readonly RunRow[]): Sample[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return posted.map((p) => {
    const row = byId.get(p.runId)!;
    check(row.status === 'completed', `run ${row.id} ended ${row.status}`);
    check(row.kind === 'general', `run ${row.id} is a ${row.kind} run, not general`);
    const model = row.tag ? modelTime.get(row.tag) : undefined;
    const accepted = accepts.get(row.id);
    const claim = claims.get(row.id);
    const wall = row.started !== null && row.finished !== null ? row.finished - row.started : null;
    return {
      leaseMs: (row.started ?? NaN) - p.sentAt,
      toCreatedMs: row.created - p.sentAt,
      createdToLeaseMs: (row.started ?? NaN) - row.created,
      postMs: p.answeredAt - p.sentAt,
      overheadPerRoundMs: wall !== null && model && model.rounds > 0 ? (wall - model.ms) / model.rounds : null,
      acceptTxMs: accepted ? accepted.end - accepted.start : NaN,
      acceptToClaimMs: accepted && claim ? claim.start - accepted.end : NaN,
      claimMs: claim ? claim.end - claim.start : NaN,
    };
  });
}

const ms = (v: number) => `${v.toFixed(1)} ms`;
const medP99 = (values: number[]) => `${ms(median(values))} / ${ms(percentile(values, 99))}`;
function report(label: string, samples: readonly Sample[], busy: number, queries: number): void {
  const lease = samples.map((s) => s.leaseMs);
  const overhead = samples.flatMap((s) => (s.overheadPerRoundMs === null ? [] : [s.overheadPerRoundMs]));
  console.log(
    `accept-to-lease, ${label}: median ${ms(median(lease))}, p99 ${ms(percentile(lease, 99))} (target median ≤ 20 ms, p99 ≤ 100 ms)`,
  );
  console.log(
    `  of which request start → run inserted ${ms(median(samples.map((s) => s.toCreatedMs)))}, ` +
      `inserted → leased ${ms(median(samples.map((s) => s.createdToLeaseMs)))} (p99 ${ms(
        percentile(
          samples.map((s) => s.createdToLeaseMs),
          99,
        ),
      )}); ` +
      `POST answered after ${ms(median(samples.map((s) => s.postMs)))} (medians)`,
  );
  console.log(
    `orchestration overhead per model round, ${label}: median ${ms(median(overhead))}, p99 ${ms(percentile(overhead, 99))} ` +
      `(run wall time − time inside the model server, / rounds)`,
  );
  console.log(
    `  profile (median / p99): accept transaction ${medP99(samples.map((s) => s.acceptTxMs))}, ` +
      `accepted → claim starts ${medP99(samples.map((s) => s.acceptToClaimMs))}, claim statement ${medP99(samples.map((s) => s.claimMs))}, ` +
      `empty claims ${emptyClaims.length} (${ms(median(emptyClaims))} median); ` +
      `${(queries / samples.length).toFixed(1)} Postgres statements per run; event loop busy ${(busy * 100).toFixed(0)}% (one process: API, executors, model, client)`,
  );
  emptyClaims = [];
}

const stop: (() => Promise<void>)[] = [];
try {
  const { services, databaseUrl } = await startServices();
  const { redis } = services;
  stop.push(() => services.stop());
  const model = await ScriptedModelServer.start(script);
  timeModelServer(model);
  stop.unshift(() => model.close());
  // The executor resolves its model from the environment.
  Object.assign(process.env, {
    LAZYBOY_MODEL_PROVIDER: 'openai-chat',
    LAZYBOY_MODEL_BASE_URL: model.url,
    LAZYBOY_MODEL: model.model,
    OPENAI_API_KEY: 'x',
  });
  const config = loadApiConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    LAZYBOY_VAULT_KEY: randomBytes(24).toString('hex'),
    LAZYBOY_LOG_LEVEL: 'error',
    LAZYBOY_RUN_CONCURRENCY: String(CONCURRENCY),
  });
  const app = await startTestApp(config);
  stop.unshift(() => app.close());
  instrument(app.app);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  pool.on('connect', (client) => benchClients.add(client));
  countQueries();
  stop.unshift(() => pool.end());

  const user = await signUp(app.url);
  const sessions: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const bot = await call<{ id: string }>(app.url, user.cookie, 'POST', `/api/workspaces/${user.workspaceId}/bots`, {
      name: `Bench agent ${i}`,
    });
    if (bot.status !== 201) throw new Error(`creating an agent answered ${bot.status}: ${JSON.stringify(bot.body)}`);
    const session = await call<{ id: string }>(app.url, user.cookie, 'POST', `/api/bots/${bot.body.id}/sessions`, {});
    if (session.status !== 201) throw new Error(`creating a chat answered ${session.status}: ${JSON.stringify(session.body)}`);
    sessions.push(session.body.id);
  }

  const post = async (sessionId: string, text: string, clientNonce: string): Promise<Posted> => {
    const sentAt = epochNow();
    const res = await call<{ message: { id: string }; run: { id: string }; replayed: boolean }>(
      app.url,
      user.cookie,
      'POST',
      `/api/sessions/${sessionId}/messages`,
      { text, clientNonce },
    );
    const answeredAt = epochNow();
    if (res.status !== 202) throw new Error(`POST message answered ${res.status}: ${JSON.stringify(res.body)}`);
    return { runId: res.body.run.id, messageId: res.body.message.id, replayed: res.body.replayed, sentAt, answeredAt };
  };
  const postTask = (sessionId: string) => post(sessionId, task().text, `nonce-${randomUUID()}`);

  // Warm-up (JIT, pools, connections): not counted.
  for (let i = 0; i < 5; i++) await waitFinished(pool, [(await postTask(sessions[0]!)).runId], 30_000);
  await waitFinished(pool, await Promise.all(sessions.map(async (s) => (await postTask(s)).runId)), 60_000);

  // 1. and 2., one agent: each message after the previous run completed.
  const sequential: Sample[] = [];
  emptyClaims = [];
  apiQueries = 0;
  let elu = eventLoopUtilization();
  for (let i = 0; i < SEQUENTIAL; i++) {
    const posted = await postTask(sessions[1 % AGENTS]!);
    sequential.push(...samplesOf([posted], await waitFinished(pool, [posted.runId], 30_000)));
  }
  report(`1 agent (${SEQUENTIAL} sequential messages)`, sequential, eventLoopUtilization(elu).utilization, apiQueries);

  // 1. and 2., every agent at once: one message each, several rounds.
  const concurrent: Sample[] = [];
  elu = eventLoopUtilization();
  apiQueries = 0;
  for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
    const posted = await Promise.all(sessions.map((s) => postTask(s)));
    concurrent.push(
      ...samplesOf(
        posted,
        await waitFinished(
          pool,
          posted.map((p) => p.runId),
          60_000,
        ),
      ),
    );
  }
  report(
    `${AGENTS} concurrent agents (${CONCURRENT_ROUNDS} rounds, ${concurrent.length} runs)`,
    concurrent,
    eventLoopUtilization(elu).utilization,
    apiQueries,
  );

  // 3. A burst with retried clientNonces: one run and one answer per message, none lost or doubled.
  const perAgent = Math.ceil(BURST / AGENTS);
  const answers = new Map<string, Posted[]>();
  let posts = 0;
  const burstStart = epochNow();
  await Promise.all(
    sessions.map(async (sessionId, agent) => {
      for (let i = 0; i < perAgent && agent * perAgent + i < BURST; i++) {
        const { text } = task();
        const nonce = `burst-${randomUUID()}`;
        const copies = Math.random() < 0.3 ? 2 + Math.floor(Math.random() * 2) : 1;
        const got: Posted[] = [];
        if (copies > 1 && Math.random() < 0.5) {
          got.push(...(await Promise.all(Array.from({ length: copies }, () => post(sessionId, text, nonce)))));
        } else {
          for (let c = 0; c < copies; c++) {
            got.push(await post(sessionId, text, nonce));
            if (c < copies - 1) await new Promise((r) => setTimeout(r, Math.random() * 20));
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
  const burstMs = Math.max(...finished.map((r) => r.finished ?? 0)) - burstStart;

  for (const [nonce, got] of answers) {
    check(new Set(got.map((p) => p.runId)).size === 1, `nonce ${nonce}: retries answered different runs`);
    check(new Set(got.map((p) => p.messageId)).size === 1, `nonce ${nonce}: retries answered different messages`);
    check(
      got.filter((p) => !p.replayed).length === 1,
      `nonce ${nonce}: ${got.filter((p) => !p.replayed).length} POSTs were not replays`,
    );
  }
  const counts = await pool.query<{
    nonce: string;
    messages: string;
    runs: string;
    run_id: string | null;
    status: string | null;
    answers: string;
  }>(
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
  if (failures.length > 0) {
    console.error(`FAILED sanity checks (${failures.length}):\n  ${failures.slice(0, 20).join('\n  ')}`);
    process.exitCode = 1;
  }
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  for (const step of stop) await step().catch((error: unknown) => console.error(`cleanup: ${(error as Error).message}`));
}
// Nest, ioredis and the pg pool may keep timers a moment longer; the figures are printed.
process.exit(process.exitCode ?? 0);
