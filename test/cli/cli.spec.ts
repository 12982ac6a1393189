import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { cliFixture } from './cli-harness.js';

const done = (summary: string): Turn => ({ toolCalls: [{ name: 'report_done', arguments: { summary } }] });
const lastTool = (r: ReceivedRequest) => {
  const m = r.messages.at(-1);
  return m?.role === 'tool' ? String(m.content) : '';
};

describe('lazyboy CLI against the scripted model', () => {
  it('run: uses a tool, reports done, exits 0 and saves the session', async () => {
    const f = await cliFixture([
      { text: 'I will count the files.', toolCalls: [{ name: 'shell', arguments: { command: 'echo one > a.txt; ls | wc -l' } }] },
      done('There is 1 file.'),
    ]);
    try {
      const { code, stdout, stderr } = await f.run(['run', 'how many files are here?']);
      expect(code).toBe(0);
      expect(stdout).toContain('I will count the files.');
      expect(stdout).toContain('There is 1 file.');
      expect(stderr).toContain('→ shell');
      expect(String(f.server.requests[1]!.messages.at(-1)?.content)).toMatch(/^exit 0\n1\n$/);
      const sessions = readdirSync(path.join(f.home, 'sessions')).filter((n) => n.endsWith('.json'));
      expect(sessions).toHaveLength(1);
    } finally {
      await f.close();
    }
  });

  it('chat: streams a plain answer and offers the model no tools', async () => {
    const f = await cliFixture([{ text: 'Tokyo is the capital of Japan.' }]);
    try {
      const { code, stdout } = await f.run(['chat', 'What is the capital of Japan?']);
      expect(code).toBe(0);
      expect(stdout.trim()).toBe('Tokyo is the capital of Japan.');
      expect(f.server.requests[0]!.tools).toEqual([]);
      expect(f.server.requests[0]!.stream).toBe(true);
    } finally {
      await f.close();
    }
  });

  it('says clearly when no model is configured', async () => {
    const f = await cliFixture([]);
    try {
      const { code, stderr } = await f.run(['run', 'anything'], {
        LAZYBOY_MODEL_PROVIDER: '',
        LAZYBOY_MODEL: '',
        LAZYBOY_MODEL_BASE_URL: '',
        XAI_API_KEY: '',
        OPENAI_API_KEY: '',
        OPENAI_BASE_URL: '',
      });
      expect(code).toBe(1);
      expect(stderr).toMatch(/^lazyboy: .*(model|LAZYBOY_MODEL)/m);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      await f.close();
    }
  });

  it('stops three identical rounds as blocked, exits 1 and gives a recovery hint', async () => {
    const same: Turn = { toolCalls: [{ name: 'shell', arguments: { command: 'echo same' } }] };
    const f = await cliFixture([same, same, same, done('never')]);
    try {
      const { code, stderr } = await f.run(['run', 'loop please']);
      expect(code).toBe(1);
      expect(stderr).toContain('blocked: the same action gave the same result 3 times in a row');
      expect(stderr).toContain('提示：');
    } finally {
      await f.close();
    }
  });

  it('confirm: approved does the action; denied never does it', async () => {
    const script = (r: ReceivedRequest): Turn => {
      const result = lastTool(r);
      if (result.startsWith('approved'))
        return { toolCalls: [{ name: 'write_file', arguments: { path: 'posted.txt', content: 'Big sale!' } }] };
      if (result.startsWith('denied')) return { toolCalls: [{ name: 'report_blocked', arguments: { reason: 'not approved' } }] };
      if (result.startsWith('wrote')) return done('Posted.');
      return { toolCalls: [{ name: 'request_user_confirm', arguments: { action: 'Post to Threads', draft: 'Big sale!' } }] };
    };
    for (const [answer, expected] of [
      ['1', 0],
      ['abort', 1],
    ] as const) {
      const f = await cliFixture(script);
      try {
        const { code, stderr } = await f.run(['run', 'post the sale'], { LAZYBOY_CONFIRM_AUTO: answer });
        expect(code).toBe(expected);
        expect(stderr).toContain('〔請確認〕即將執行：Post to Threads');
        expect(stderr).toContain('[Confirm] About to: Post to Threads');
        expect(existsSync(path.join(f.workDir, 'posted.txt'))).toBe(expected === 0);
      } finally {
        await f.close();
      }
    }
  });

  it('Ctrl-C exits 130 with a resumable session, and the agent REPL resumes it', async () => {
    const f = await cliFixture([{ toolCalls: [{ name: 'shell', arguments: { command: 'sleep 20', block_until_ms: 60_000 } }] }]);
    try {
      const run = f.start(['run', 'wait a while']);
      await run.waitFor('→ shell');
      run.child.kill('SIGINT');
      expect(await run.exit).toBe(130);
      const id = /session (\S+) saved; resume with: lazyboy agent --session \1/.exec(run.output().stderr)?.[1];
      expect(id).toBeDefined();
      const saved = JSON.parse(readFileSync(path.join(f.home, 'sessions', `${id}.json`), 'utf8')) as { history: unknown[] };
      expect(saved.history.length).toBeGreaterThanOrEqual(2);

      f.server.setScript([{ text: 'We were waiting on a sleep; it was stopped.' }]);
      const repl = await f.run(['agent', '--session', id!], {}, '\n/session\nwhat happened?\n/exit\n');
      expect(repl.code).toBe(0);
      expect(repl.stderr).toContain(`agent session ${id} (resumed)`);
      expect(repl.stdout).toContain(id);
      expect(repl.stdout).toContain('We were waiting on a sleep; it was stopped.');
      // The resumed conversation carries the interrupted call's result and the new question.
      const sent = f.server.requests[0]!.messages;
      expect(sent.some((m) => m.role === 'user' && m.content === 'wait a while')).toBe(true);
      expect(sent.at(-1)).toEqual({ role: 'user', content: 'what happened?' });
    } finally {
      await f.close();
    }
  });

  it('--help documents every command and agent setting', async () => {
    const f = await cliFixture([]);
    try {
      const { code, stdout } = await f.run(['--help']);
      expect(code).toBe(0);
      for (const word of ['chat', 'run', 'agent', 'up', 'down', 'status', '--session', '--model', '--base-url', '--playbook'])
        expect(stdout).toContain(word);
      for (const name of [
        'LAZYBOY_MAX_ROUNDS',
        'LAZYBOY_MAX_ROUNDS_TOTAL',
        'LAZYBOY_PROGRESS',
        'LAZYBOY_BROWSER_HEADED',
        'LAZYBOY_HANDOFF_AUTO',
        'LAZYBOY_CONFIRM_AUTO',
        'GROKBOY_',
      ]) {
        expect(stdout).toContain(name);
      }
    } finally {
      await f.close();
    }
  });

  it('runs a long command in the background, shows its output so far, and continues when it finishes', async () => {
    const f = await cliFixture((r: ReceivedRequest): Turn => {
      const result = lastTool(r);
      const last = r.messages.at(-1);
      if (last?.role === 'user' && String(last.content).startsWith('[background]')) return done('Build finished.');
      if (result.includes('Its number is 1')) return { toolCalls: [{ name: 'command_output', arguments: { command: 1 } }] };
      if (result.includes('compiling')) return { text: 'The build is still running.' };
      return {
        toolCalls: [{ name: 'shell', arguments: { command: 'echo compiling; sleep 1.5; echo linked', block_until_ms: 300 } }],
      };
    });
    try {
      const { code, stdout, stderr } = await f.run(['run', 'build it']);
      expect({ code, stderr }).toMatchObject({ code: 0 });
      expect(stdout).toContain('Build finished.');
      const revival = f.server.requests.at(-1)!.messages.at(-1);
      expect(String(revival?.content)).toMatch(
        /^\[background\] command job-1 \(echo compiling; sleep 1.5; echo linked\) finished:\nexit 0\nlinked/,
      );
      expect(stderr).toContain('⇢ background: job-1');
    } finally {
      await f.close();
    }
  });
});
