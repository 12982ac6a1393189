import { describe, expect, it } from '@jest/globals';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { AgentView, VaultAccountView, VaultRevealView } from '@lazyboy/contracts';
import { asPerson, logIn, sleep } from '../support/index.js';
import { runCli, stackEnv, startUp, type RunningUp } from './stack-run.js';

// `lazyboy vault rotate-key` on the local stack, both ways an operator meets it: while LazyBoy runs (the
// API restarts once with both keys, every secret is re-sealed, the old key dropped) and while it is
// stopped (the next `up` re-seals). Saved logins and model keys open throughout.

interface SecretsFile {
  vaultKey: string;
  oldVaultKeys: string[];
}

function apiEnviron(up: RunningUp): Map<string, string> {
  const pid = up.state().components.find((c) => c.name === 'api')!.pid;
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(entries.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

describe('lazyboy vault rotate-key', () => {
  it('gives the stack a new vault key, running or stopped, with every secret still opening', async () => {
    const { dataDir, env } = stackEnv({
      LAZYBOY_DISPLAY_BASE_FROM: String(23_000 + Number(process.env.JEST_WORKER_ID ?? 0) * 200),
    });
    const secretsFile = path.join(dataDir, 'secrets.json');
    const secrets = () => JSON.parse(readFileSync(secretsFile, 'utf8')) as SecretsFile;
    let up: RunningUp | undefined;
    try {
      up = await startUp(env);
      const token = /with the token (\S+)/.exec(up.output())?.[1] ?? '';
      const apiUrl = () => `http://127.0.0.1:${up!.state().ports.api}`;
      const person = async () => asPerson(apiUrl(), await logIn(apiUrl(), 'admin@lazyboy.local', token));
      const admin = await person();
      const workspaceId = (await admin.call<{ items: { id: string }[] }>('GET', '/api/workspaces')).items[0]!.id;
      const agent = await admin.call<AgentView>('POST', `/api/workspaces/${workspaceId}/agents`, { name: 'Rota' });
      await admin.call('PATCH', `/api/agents/${agent.id}`, {
        modelSettings: { provider: 'openai-chat', baseUrl: 'https://models.example.com/v1' },
        modelApiKey: 'sk-rotated-key-9876',
      });
      const account = await admin.call<VaultAccountView>('POST', `/api/agents/${agent.id}/vault`, {
        site: 'https://rotate.example.com',
        username: 'ada',
        password: 'kept-through-rotations',
      });
      const stillOpens = async () => {
        const caller = await person();
        expect((await caller.call<AgentView>('GET', `/api/agents/${agent.id}`)).modelApiKeyLast4).toBe('9876');
        const revealed = await caller.call<VaultRevealView>('POST', `/api/vault/${account.id}/reveal`, { password: token });
        expect(revealed.password).toBe('kept-through-rotations');
      };
      const first = secrets().vaultKey;

      // Running: the API restarts with the new key (and the old one to open with), re-seals, drops the old key.
      const running = runCli(['vault', 'rotate-key'], env);
      // runCli blocked this process: let it notice that the old API closed its kept-alive sockets.
      await sleep(200);
      expect(running.out).toContain('re-sealed 2 secrets');
      expect(running.out).toContain('the old vault key is no longer needed and was dropped');
      expect(running.code).toBe(0);
      const second = secrets();
      expect(second.vaultKey).not.toBe(first);
      expect(second.oldVaultKeys).toEqual([]);
      expect(apiEnviron(up).get('LAZYBOY_VAULT_KEY')).toBe(second.vaultKey);
      expect(apiEnviron(up).get('LAZYBOY_VAULT_OLD_KEYS')).toBe(first);
      await stillOpens();

      // Stopped: the file gets the new key; the next `up` opens both, re-seals and drops the old one.
      process.kill(-up.process.pid!, 'SIGINT');
      expect(await up.exited).toBe(0);
      const stopped = runCli(['vault', 'rotate-key'], env);
      expect(stopped.out).toContain('the next `lazyboy up` re-seals');
      expect(secrets().oldVaultKeys).toEqual([second.vaultKey]);
      up = await startUp(env);
      expect(up.output()).toContain('re-sealed 2 secrets');
      expect(secrets().oldVaultKeys).toEqual([]);
      expect(apiEnviron(up).get('LAZYBOY_VAULT_KEY')).toBe(secrets().vaultKey);
      await stillOpens();
    } finally {
      if (up && up.process.exitCode === null) {
        process.kill(-up.process.pid!, 'SIGINT');
        await up.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
