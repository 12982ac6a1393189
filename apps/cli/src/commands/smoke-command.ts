import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Runtime } from '@lazyboy/agent';
import { createModelClient, ScriptedModelServer, scriptedBackend } from '@lazyboy/model';
import { cliTools } from '../tools/cli-tools.js';
import { LocalBrowser } from '../tools/local-browser.js';

/**
 * `lazyboy smoke`: an offline self-check with no API key and no standard input. The real runtime and
 * tools run a short task against the scripted model server (over HTTP, as with a real provider), and the
 * result on disk is checked.
 */
export async function smoke(print: (line: string) => void = console.log): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-smoke-'));
  const server = await ScriptedModelServer.start([
    {
      text: 'Writing a note, then checking it.',
      toolCalls: [{ name: 'write_file', arguments: { path: 'note.txt', content: 'smoke ok' } }],
    },
    { toolCalls: [{ name: 'shell', arguments: { command: 'cat note.txt' } }] },
    { toolCalls: [{ name: 'report_done', arguments: { summary: 'The note says: smoke ok' } }] },
  ]);
  try {
    const runtime = new Runtime({
      model: createModelClient(scriptedBackend(server)),
      tools: cliTools({ cwd: dir, logDir: dir, timeoutMs: 10_000, blockUntilMs: 10_000, browser: unusedBrowser(dir) }).tools,
      human: { mode: 'turn-ending' },
      systemPrompt: 'smoke test',
      limits: { roundsPerChunk: 10, roundsTotal: 10 },
    });
    const { outcome } = await runtime.run({ message: 'write a note and read it back' });
    const checks: Array<[string, boolean]> = [
      ['the loop finished with report_done', outcome.status === 'done'],
      ['write_file wrote the note', readFileSync(path.join(dir, 'note.txt'), 'utf8') === 'smoke ok'],
      ['shell read it back', String(server.requests[2]?.messages.at(-1)?.content ?? '').includes('smoke ok')],
      ['the model was asked three times over HTTP', server.requests.length === 3],
    ];
    for (const [name, ok] of checks) print(`${ok ? 'ok  ' : 'FAIL'} ${name}`);
    const passed = checks.every(([, ok]) => ok);
    print(passed ? 'smoke: ok' : 'smoke: FAILED');
    return passed ? 0 : 1;
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The smoke run never browses; the browser tool is there (as in every CLI session) and never launches. */
function unusedBrowser(dir: string): LocalBrowser {
  return new LocalBrowser({ executablePath: '/usr/bin/chromium', profileDir: path.join(dir, 'browser-profile'), headed: false });
}
