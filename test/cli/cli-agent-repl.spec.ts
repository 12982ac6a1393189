import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { repoRoot } from '@lazyboy/localstack';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { cliFixture } from './cli-harness.js';

const done = (summary: string): Turn => ({ toolCalls: [{ name: 'report_done', arguments: { summary } }] });

describe('lazyboy CLI: smoke, progress, playbooks, aliases, REPL steering and /stop', () => {
  it('smoke passes offline, without a key or standard input', async () => {
    const f = await cliFixture([]);
    try {
      const { code, stdout } = await f.run(['smoke'], {
        LAZYBOY_MODEL_PROVIDER: '',
        LAZYBOY_MODEL: '',
        LAZYBOY_MODEL_BASE_URL: '',
      });
      expect(code).toBe(0);
      expect(stdout).toContain('smoke: ok');
    } finally {
      await f.close();
    }
  });

  it('prints a progress beat per chunk on stderr, and LAZYBOY_PROGRESS=0 silences it', async () => {
    let n = 0;
    const script = (): Turn =>
      ++n % 5 === 0 ? done('all read') : { toolCalls: [{ name: 'list_files', arguments: { path: `.${'/.'.repeat(n % 5)}` } }] };
    const f = await cliFixture(script);
    try {
      const loud = await f.run(['run', 'read around'], { GROKBOY_MAX_ROUNDS: '2' });
      expect(loud.code).toBe(0);
      expect(loud.stderr).toMatch(/〔續跑〕第 1 段（已用 2\/48 輪）進度：/);
      expect(loud.stderr).toMatch(/〔續跑〕第 2 段（已用 4\/48 輪）進度：/);
      const quiet = await f.run(['run', 'read around'], { LAZYBOY_MAX_ROUNDS: '2', LAZYBOY_PROGRESS: '0' });
      expect(quiet.code).toBe(0);
      expect(quiet.stderr).not.toContain('〔續跑〕');
    } finally {
      await f.close();
    }
  });

  it('gives a playbook to the agent as guidance in its instructions', async () => {
    const f = await cliFixture([done('ok')]);
    try {
      const playbook = path.join(repoRoot, 'docs/scenarios/examples/shopee-threads-affiliate.md');
      const { code } = await f.run(['run', '--playbook', playbook, 'post three camping lamps']);
      expect(code).toBe(0);
      const system = String(f.server.requests[0]!.messages[0]?.content);
      expect(system).toContain('--- playbook ---');
      expect(system).toContain('Shopee Affiliate → Threads post');
      expect(system).toContain('guidance');
    } finally {
      await f.close();
    }
  });

  it('steers a working agent with a typed line, /stop cancels the turn, and the REPL stays open', async () => {
    const script = (r: ReceivedRequest): Turn => {
      const last = r.messages.at(-1);
      const userTexts = r.messages.filter((m) => m.role === 'user').map((m) => String(m.content));
      if (userTexts.includes('second task')) {
        if (last?.role === 'tool') return { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 30' } }] };
        return { toolCalls: [{ name: 'shell', arguments: { command: 'echo starting' } }] };
      }
      if (last?.role === 'user' && last.content === 'use the blue theme') return done('Used the blue theme.');
      if (last?.role === 'tool') return { toolCalls: [{ name: 'shell', arguments: { command: 'echo more' } }] };
      return { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 1; echo built' } }] };
    };
    const f = await cliFixture(script);
    try {
      const repl = f.start(['agent']);
      await repl.waitFor('agent session');
      repl.child.stdin!.write('build the site\n');
      await repl.waitFor('→ shell {"command":"sleep 1; echo built"}');
      repl.child.stdin!.write('use the blue theme\n');
      await repl.waitFor('Used the blue theme.');
      expect(repl.output().stderr).toContain('noted, applied at the next step');

      repl.child.stdin!.write('second task\n');
      await repl.waitFor('→ shell {"command":"sleep 30"}');
      repl.child.stdin!.write('/stop\n');
      await repl.waitFor('stopped; state saved');
      repl.child.stdin!.write('/session\n/exit\n');
      expect(await repl.exit).toBe(0);
      expect(repl.output().stdout).toMatch(/\d{8}-\d{6}-[0-9a-f]{6}\n/);
    } finally {
      await f.close();
    }
  }, 60_000);

  it('Ctrl-C in the REPL stops the running turn and keeps the REPL open', async () => {
    const f = await cliFixture((r: ReceivedRequest): Turn =>
      r.messages.at(-1)?.role === 'user' && r.messages.at(-1)?.content === 'and now?'
        ? { text: 'Still here.' }
        : { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 30' } }] },
    );
    try {
      const repl = f.start(['agent']);
      await repl.waitFor('agent session');
      repl.child.stdin!.write('wait for it\n');
      await repl.waitFor('→ shell {"command":"sleep 30"}');
      repl.child.kill('SIGINT');
      await repl.waitFor('stopped; state saved');
      repl.child.stdin!.write('and now?\n');
      await repl.waitFor('Still here.');
      repl.child.stdin!.write('/quit\n');
      expect(await repl.exit).toBe(0);
    } finally {
      await f.close();
    }
  }, 60_000);

  it('fails closed when no browser can start: the tool says so and nothing pretends', async () => {
    const f = await cliFixture((r: ReceivedRequest): Turn => {
      const last = r.messages.at(-1);
      if (last?.role === 'tool') return { toolCalls: [{ name: 'report_blocked', arguments: { reason: String(last.content) } }] };
      return { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: 'http://127.0.0.1:9/' } }] };
    });
    try {
      const { code, stderr } = await f.run(['run', 'open the page'], { LAZYBOY_CHROMIUM: '/nonexistent/chromium' });
      expect(code).toBe(1);
      expect(stderr).toContain('BROWSER_UNAVAILABLE: the browser could not start');
    } finally {
      await f.close();
    }
  });
});
