import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { READ_PAGE_BYTES, type ToolContext, type ToolDefinition, type ToolOutcome } from '@lazyboy/agent';
import { cliTools } from '../../apps/cli/src/tools/cli-tools.js';
import { LocalBrowser } from '../../apps/cli/src/tools/local-browser.js';

// The CLI's in-process shell and file transports under the shared tools: real bash, real files.

let dir: string;
let tools: ToolDefinition[];
let calls = 0;
let jobs: Promise<ToolOutcome>[] = [];

const context = (): ToolContext => ({
  signal: new AbortController().signal,
  callId: `call-${++calls}`,
  background: (_description, work) => {
    jobs.push(work);
    return `job-${jobs.length}`;
  },
});

async function use(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
  const tool = tools.find((t) => t.name === name)!;
  return tool.execute(tool.schema.parse(args), context());
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-cli-transports-'));
  tools = cliTools({
    cwd: dir,
    logDir: dir,
    timeoutMs: 60_000,
    blockUntilMs: 10_000,
    browser: new LocalBrowser({ executablePath: '/nonexistent/chromium', profileDir: path.join(dir, 'profile'), headed: false }),
  }).tools;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CLI shell', () => {
  it('returns the exit status and the output, and its end with one note naming the log when it is long', async () => {
    expect(await use('shell', { command: 'echo hello; exit 2' })).toEqual({ content: 'exit 2\nhello\n', isError: true });
    const long = await use('shell', { command: 'head -c 20000 /dev/zero | tr "\\0" a' });
    const text = String(long.content);
    expect(text).toMatch(/^exit 0\n\[… 12000 earlier bytes in .*command-\d+\.log …\]\na{8000}$/);
    expect(text.match(/\[… /g)).toHaveLength(1);
  });

  it('kills a command at its deadline, with its process group', async () => {
    const killed = await use('shell', { command: 'sleep 30 & sleep 30; echo never', timeout_secs: 1 });
    expect(killed).toMatchObject({ content: 'killed after 1 s (deadline)\n(no output)', isError: true });
  });

  it('backgrounds a command past block_until_ms; command_output shows what is new, the job what is left', async () => {
    jobs = [];
    // It goes on only when the test says so (the file `go`), so "still running" does not depend on timing.
    const started = await use('shell', {
      command: 'echo first; while [ ! -e go ]; do sleep 0.05; done; echo second',
      block_until_ms: 300,
    });
    const number = Number(/Its number is (\d+): command_output/.exec(String(started.content))?.[1]);
    expect(number).toBeGreaterThan(0);
    expect(await use('command_output', { command: number })).toEqual({
      content: 'first\n\n[still running]',
      controlledWait: true,
    });
    writeFileSync(path.join(dir, 'go'), '');
    expect(await jobs[0]!).toEqual({ content: 'exit 0\nsecond\n', isError: false });
    expect(await use('command_output', { command: 999 })).toMatchObject({ content: /^UNKNOWN_COMMAND: /, isError: true });
  });
});

describe('the CLI files', () => {
  it('writes, reads back in byte pages that never split a character, and lists', async () => {
    // One byte short of a page, then a three-byte character across the page's end.
    const content = `${'x'.repeat(READ_PAGE_BYTES - 1)}語 and the rest`;
    expect(await use('write_file', { path: 'deep/notes.txt', content })).toEqual({
      content: `wrote ${Buffer.byteLength(content)} bytes to deep/notes.txt`,
    });
    const first = String((await use('read_file', { path: 'deep/notes.txt' })).content);
    expect(first).toBe(`${'x'.repeat(READ_PAGE_BYTES - 1)}\n[… 16 more bytes: read again with offset ${READ_PAGE_BYTES - 1}]`);
    expect(await use('read_file', { path: 'deep/notes.txt', offset: READ_PAGE_BYTES - 1 })).toEqual({
      content: '語 and the rest',
    });

    writeFileSync(path.join(dir, 'deep/empty.txt'), '');
    symlinkSync('notes.txt', path.join(dir, 'deep/link'));
    expect(await use('read_file', { path: 'deep/empty.txt' })).toEqual({ content: '(empty)' });
    expect(await use('list_files', { path: 'deep' })).toEqual({
      content: `deep:\nempty.txt (0 bytes)\nlink@\nnotes.txt (${Buffer.byteLength(content)} bytes)`,
    });
  });

  it('names a missing file and a folder read as a file by their codes', async () => {
    expect(await use('read_file', { path: 'nope.txt' })).toMatchObject({
      content: /^FILE_NOT_FOUND: nope\.txt: /,
      isError: true,
    });
    expect(await use('read_file', { path: 'deep' })).toMatchObject({ content: /^NOT_A_FILE: deep: /, isError: true });
  });
});

describe('the CLI browser', () => {
  it('fails closed with a clear error when Chromium cannot start', async () => {
    expect(await use('browser', { action: 'navigate', url: 'http://127.0.0.1:9/' })).toMatchObject({
      content: /^BROWSER_UNAVAILABLE: the browser could not start: /,
      isError: true,
    });
  });
});
