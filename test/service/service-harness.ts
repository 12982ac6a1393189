import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PostMessageResponse, RealtimeAck, RealtimeEvent, RealtimeRoom, RunView } from '@lazyboy/contracts';
import { ScriptedModelServer, type Script } from '@lazyboy/model';
import { io, type Socket } from 'socket.io-client';
import type { ApiConfig } from '../../apps/api/src/config/api-config.js';
import { startTestApp, type ProviderOverride, type TestApp } from '../../apps/api/src/testing/test-app.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../../apps/api/src/testing/test-database.js';
import { testApiConfig } from '../../apps/api/src/testing/test-config.js';
import { asPerson, signUp, sleep, type TestUser } from '../support/index.js';
import { startTestSite } from '../../libs/desktop/src/testing/test-site.js';

/**
 * The service as a user meets it: the whole API (real Postgres, Redis, local workers) with the scripted
 * model behind it, a signed-up user, and small HTTP / socket.io helpers.
 */
export class ServiceHarness {
  model!: ScriptedModelServer;
  app!: TestApp;
  /** A database of its own: its executors must not claim the runs of suites running beside it. */
  database!: IsolatedDatabase;
  readonly homes = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-service-'));

  async start(
    script: Script,
    overrides: Partial<Record<keyof ApiConfig, string>> = {},
    providers: ProviderOverride[] = [],
  ): Promise<void> {
    chmodSync(this.homes, 0o755);
    this.database = await createIsolatedDatabase();
    this.model = await ScriptedModelServer.start(script);
    // The environment is the last link of the credential chain: every agent without settings uses it.
    process.env.LAZYBOY_MODEL_PROVIDER = 'openai-chat';
    process.env.LAZYBOY_MODEL_BASE_URL = this.model.url;
    process.env.LAZYBOY_MODEL = this.model.model;
    process.env.OPENAI_API_KEY = 'scripted-key';
    this.app = await startTestApp(this.config(overrides), providers);
  }

  config(overrides: Partial<Record<keyof ApiConfig, string>> = {}): ApiConfig {
    return testApiConfig({
      DATABASE_URL: this.database.url,
      LAZYBOY_RUNNER: 'true',
      LAZYBOY_HOMES_DIR: this.homes,
      // Each Jest worker has its own range of X display numbers (suites run desktops in parallel).
      LAZYBOY_DISPLAY_BASE_FROM: String(1_000 + Number(process.env.JEST_WORKER_ID ?? 0) * 1_000 + 900),
      TEAM_SCREEN_LIMIT: '2',
      // Suites sign up many people, each in a workspace of their own, all served by the scripted model in
      // the environment; test/service/workspace-models.spec.ts tests the default (the first workspace only).
      LAZYBOY_ENVIRONMENT_MODEL_SCOPE: 'all_workspaces',
      ...overrides,
    });
  }

  async stop(): Promise<void> {
    await this.app?.close();
    await this.model?.close();
    await this.database?.drop();
    rmSync(this.homes, { recursive: true, force: true });
  }

  /** A new user with an agent and a chat. */
  async userWithAgent(name = 'Ada'): Promise<{ user: TestUser; agentId: string; chatId: string }> {
    const user = await signUp(this.app.url);
    const agent = await this.call<{ id: string }>(user, 'POST', `/api/workspaces/${user.workspaceId}/agents`, { name });
    const chat = await this.call<{ id: string }>(user, 'POST', `/api/agents/${agent.id}/chats`, {});
    return { user, agentId: agent.id, chatId: chat.id };
  }

  call<T>(user: TestUser, method: string, route: string, body?: unknown, expectStatus?: number): Promise<T> {
    return asPerson(this.app.url, user.cookie).call<T>(method, route, body, expectStatus);
  }

  raw(user: TestUser | null, method: string, route: string, body?: unknown): Promise<Response> {
    return asPerson(this.app.url, user?.cookie ?? null).raw(method, route, body);
  }

  send(user: TestUser, chatId: string, text: string, clientNonce = `nonce-${Math.random().toString(36).slice(2)}`) {
    return this.call<PostMessageResponse>(user, 'POST', `/api/chats/${chatId}/messages`, { text, clientNonce });
  }

  /** Polls the run until `done(run)` holds. */
  async runUntil(user: TestUser, runId: string, done: (run: RunView) => boolean, timeoutMs = 60_000): Promise<RunView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await this.call<RunView>(user, 'GET', `/api/runs/${runId}`);
      if (done(run)) return run;
      if (Date.now() > deadline)
        throw new Error(`run ${runId} still ${run.status} (${JSON.stringify(run.busyStep)}) after ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  async socket(user: TestUser, rooms: RealtimeRoom[]): Promise<{ socket: Socket; events: RealtimeEvent[] }> {
    const socket = io(this.app.url, { transports: ['websocket'], extraHeaders: { cookie: user.cookie }, reconnection: false });
    const events: RealtimeEvent[] = [];
    socket.on('event', (event: RealtimeEvent) => events.push(event));
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    for (const room of rooms) {
      const ack = (await socket.timeout(5_000).emitWithAck('subscribe', room)) as RealtimeAck;
      if (!ack.ok) throw new Error(`subscribe ${room.kind} refused: ${ack.error}`);
    }
    return { socket, events };
  }
}

export const FINAL = (run: RunView) => ['completed', 'blocked', 'failed', 'cancelled'].includes(run.status);

/** A site for the agent (on the stand-in internet as root): a page with a button whose click the server counts. */
export async function startButtonSite(): Promise<{
  url: string;
  clicks: () => number;
  requests: (p: string) => number;
  close(): Promise<void>;
}> {
  let clicks = 0;
  const hits = new Map<string, number>();
  const site = await startTestSite((req, res) => {
    const url = req.url ?? '/';
    hits.set(url, (hits.get(url) ?? 0) + 1);
    if (url === '/clicked') {
      clicks++;
      res.end('ok');
      return;
    }
    if (url === '/hang') return; // never answers: a tool call that is in flight until its process dies
    if (url === '/slow') {
      setTimeout(() => res.end('<!doctype html><title>Slow page</title><p>Slow page loaded</p>'), 5_000);
      return;
    }
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>Button test</title><h1 id="status">Waiting</h1>
<button onclick="fetch('/clicked').then(() => { document.getElementById('status').textContent = 'Pressed!'; })">Press me</button>`);
  });
  return { url: site.url, clicks: () => clicks, requests: (p) => hits.get(p) ?? 0, close: site.close };
}
