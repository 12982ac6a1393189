import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentComputerView, PostMessageResponse, RunView } from '@lazyboy/contracts';
import { ScriptedModelServer } from '@lazyboy/model';
import { logIn, sleep } from '../support/index.js';
import { runCli, stackEnv, startUp, type RunningUp } from './stack-run.js';

const asRoot = process.getuid?.() === 0;
const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

async function call<T>(baseUrl: string, cookie: string, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** Every regular file under `root` that holds `needle`, as bytes anywhere in it (Postgres's pages and WAL too). */
function filesHolding(root: string, needle: string): string[] {
  const found: string[] = [];
  const bytes = Buffer.from(needle);
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      const stat = lstatSync(file);
      if (stat.isDirectory()) walk(file);
      else if (stat.isFile() && readFileSync(file).includes(bytes)) found.push(file);
    }
  };
  walk(root);
  return found;
}

/**
 * A checkout under /root, or any 0700 directory: the postgres, redis and computer users cannot pass
 * through it. `up` started from there, with its data there, still gets to an answered message and a
 * running computer, and loosens no permission of what the user made.
 */
describe('lazyboy up from a private directory', () => {
  it('keeps the data directory private, moves what service users need out of it, and answers a message', async () => {
    const privateDir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-private-'));
    expect(mode(privateDir)).toBe('700');
    const stateRoot = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-state-'));
    chmodSync(stateRoot, 0o755);
    const dataDir = path.join(privateDir, 'checkout', 'data');
    mkdirSync(path.dirname(dataDir), { mode: 0o700 });
    // The model is the workspace's, with a key saved through the API: the run must use it, and nothing
    // `up` writes (logs, Postgres's files, Redis's) may hold it in the clear.
    const modelKey = `sk-planted-${randomBytes(12).toString('hex')}`;
    const model = await ScriptedModelServer.start([{ text: '你好！我在。' }]);
    const { env } = stackEnv(
      {
        LAZYBOY_STATE_DIR: stateRoot,
        LAZYBOY_DISPLAY_BASE_FROM: String(21_000 + Number(process.env.JEST_WORKER_ID ?? 0) * 200),
      },
      dataDir,
    );
    let up: RunningUp | undefined;
    try {
      // Started from inside the private directory, as `cd /root/lazyboy && ./lazyboy up` is.
      up = await startUp(env, { cwd: path.dirname(dataDir) });
      const output = up.output();
      const token = /with the token (\S+)/.exec(output)?.[1] ?? '';
      const apiUrl = `http://127.0.0.1:${up.state().ports.api}`;

      // What the user made keeps its mode; the data directory `up` made is private too.
      expect([mode(privateDir), mode(path.dirname(dataDir))]).toEqual(['700', '700']);
      if (asRoot) {
        expect(mode(dataDir)).toBe('700');
        expect(output).toContain('the data directory is private');
        const [stateDir, ...others] = readdirSync(stateRoot).map((name) => path.join(stateRoot, name));
        expect(others).toEqual([]);
        expect(existsSync(path.join(stateDir!, 'postgres', 'PG_VERSION'))).toBe(true);
        expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
        expect(mode(path.join(dataDir, 'secrets.json'))).toBe('600');
      }

      const cookie = await logIn(apiUrl, 'admin@lazyboy.local', token);
      const workspaces = await call<{ items: Array<{ id: string }> }>(apiUrl, cookie, 'GET', '/api/workspaces');
      const workspaceId = workspaces.items[0]!.id;
      await call(apiUrl, cookie, 'PATCH', '/api/admin/settings', { allowLocalModelServers: true });
      const saved = await call<unknown>(apiUrl, cookie, 'PATCH', `/api/workspaces/${workspaceId}`, {
        modelSettings: { provider: 'openai-chat', baseUrl: model.url, model: model.model },
        modelApiKey: modelKey,
      });
      expect(JSON.stringify(saved)).not.toContain(modelKey);
      const agent = await call<{ id: string }>(apiUrl, cookie, 'POST', `/api/workspaces/${workspaceId}/agents`, { name: 'Ada' });
      const chat = await call<{ id: string }>(apiUrl, cookie, 'POST', `/api/agents/${agent.id}/chats`, {});
      const sent = await call<PostMessageResponse>(apiUrl, cookie, 'POST', `/api/chats/${chat.id}/messages`, {
        text: '你好',
        clientNonce: 'private-data-dir-1',
      });
      let run: RunView;
      const deadline = Date.now() + 60_000;
      do {
        await sleep(200);
        run = await call<RunView>(apiUrl, cookie, 'GET', `/api/runs/${sent.run.id}`);
      } while (!['completed', 'failed', 'cancelled'].includes(run.status) && Date.now() < deadline);
      expect({ status: run.status, error: run.errorMessage }).toEqual({ status: 'completed', error: null });
      const history = await call<{ items: Array<{ role: string; text: string }> }>(
        apiUrl,
        cookie,
        'GET',
        `/api/chats/${chat.id}/messages?limit=10`,
      );
      expect(history.items.filter((m) => m.role === 'assistant').map((m) => m.text)).toEqual(['你好！我在。']);
      expect(model.requests.map((r) => r.headers['authorization'])).toEqual([`Bearer ${modelKey}`]);
      for (const route of [`/api/workspaces/${workspaceId}`, `/api/workspaces/${workspaceId}/agents`, `/api/runs/${run.id}`]) {
        expect({ route, answer: JSON.stringify(await call<unknown>(apiUrl, cookie, 'GET', route)) }).not.toEqual({
          route,
          answer: expect.stringContaining(modelKey),
        });
      }

      // The agent's computer: its desktop runs as its own user, in a home that user can reach.
      const view = await call<AgentComputerView>(apiUrl, cookie, 'POST', `/api/agents/${agent.id}/computer/boot`);
      expect(view.computer?.state).toBe('running');
      expect(view.screen?.agentId).toBe(agent.id);
      if (asRoot) {
        const homesDir = path.join(readdirSync(stateRoot).map((name) => path.join(stateRoot, name))[0]!, 'homes');
        const homes = readdirSync(homesDir).map((name) => statSync(path.join(homesDir, name)));
        expect(homes.map((home) => ({ mode: (home.mode & 0o777).toString(8), root: home.uid === 0 }))).toEqual([
          { mode: '700', root: false },
        ]);
      }

      process.kill(-up.process.pid!, 'SIGINT');
      expect(await up.exited).toBe(0);
      expect(runCli(['down'], env)).toEqual({ code: 0, out: 'LazyBoy is not running.\n' });
      // Stopped, Postgres and Redis have written out everything they hold.
      expect(up.output()).not.toContain(modelKey);
      expect([...filesHolding(privateDir, modelKey), ...filesHolding(stateRoot, modelKey)]).toEqual([]);
    } finally {
      if (up && up.process.exitCode === null && up.process.signalCode === null) {
        process.kill(-up.process.pid!, 'SIGINT');
        await up.exited;
      }
      await model.close();
      rmSync(privateDir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    }
  }, 240_000);
});
